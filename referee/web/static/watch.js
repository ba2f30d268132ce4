// One game's page: step through positions, follow the game live, a seat's view.
// The seat's token is read from the address's fragment (#token=...), which the
// browser never sends to the server; this script sends it only in an
// Authorization header. No library, no network but this server.
(function () {
  "use strict";
  var root = document.getElementById("game");
  if (!root || !window.fetch) { return; }
  var id = root.dataset.id;
  var version = parseInt(root.dataset.version, 10);
  var at = root.dataset.at ? parseInt(root.dataset.at, 10) : null;  // null: the latest
  var token = null;
  var m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (m) { token = decodeURIComponent(m[1]); }
  var base = "/v1/games/" + encodeURIComponent(id);
  var logSeen = 0;
  var busy = false;

  function get(path) {
    var headers = token ? { "Authorization": "Bearer " + token } : {};
    return fetch(base + path, { headers: headers, cache: "no-store" }).then(function (r) {
      if (!r.ok) { throw new Error(path + ": " + r.status); }
      return (r.headers.get("Content-Type") || "").indexOf("json") >= 0 ? r.json() : r.text();
    });
  }
  function shown() { return at === null ? version : at; }
  function q() { return at === null ? "" : "?at=" + at; }

  function drawPicture(svgText) {
    var doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
    var pic = document.getElementById("picture");
    pic.textContent = "";
    pic.appendChild(document.importNode(doc.documentElement, true));
  }
  function drawPlayers(summary, view) {
    var body = document.getElementById("players");
    body.textContent = "";
    summary.players.forEach(function (p, i) {
      var tr = document.createElement("tr");
      var name = typeof p === "string" ? p : (p.name || "seat " + i);
      var cells = [i, name + (view.seat === i ? " (you)" : ""),
                   summary.scores ? summary.scores[i] : "",
                   view.to_act.indexOf(i) >= 0 && view.status === "active" ? "to play" : ""];
      cells.forEach(function (c) { var td = document.createElement("td"); td.textContent = c; tr.appendChild(td); });
      body.appendChild(tr);
    });
    var st = view.status;
    if (view.result) { st += ": " + (view.result.reason || JSON.stringify(view.result)); }
    document.getElementById("status").textContent = st;
  }
  function markLog() {
    var items = document.querySelectorAll("#log li");
    for (var i = 0; i < items.length; i++) {
      items[i].classList.toggle("current", parseInt(items[i].value, 10) === shown());
    }
  }
  function pullLog() {
    return get("/log?limit=1000&after=" + logSeen).then(function (ans) {
      var ol = document.getElementById("log");
      ans.lines.forEach(function (l) {
        var li = document.createElement("li");
        li.value = l.seq; li.textContent = l.text;
        ol.appendChild(li); logSeen = l.seq;
      });
      if (ans.lines.length) { ol.scrollTop = ol.scrollHeight; }
      markLog();
    });
  }
  function show() {
    busy = true;
    return Promise.all([get("/board.svg" + q()), get("/view" + q()), get("")]).then(function (r) {
      drawPicture(r[0]);
      version = r[2].version;
      document.getElementById("text").textContent = r[1].text;
      drawPlayers(r[2], r[1]);
      document.getElementById("position").textContent = shown() + " / " + version;
      document.getElementById("seen-as").textContent = r[1].viewer === "seat"
        ? "the view of seat " + r[1].seat : (r[1].viewer === "admin" ? "the organiser's view" : "spectator's view");
      var url = location.pathname + q() + location.hash;
      history.replaceState(null, "", url);
      markLog();
    }).catch(function (e) {
      document.getElementById("seen-as").textContent = "could not load: " + e.message;
    }).then(function () { busy = false; });
  }
  function step(to) {
    if (to >= version) { at = null; } else { at = Math.max(1, to); }
    document.getElementById("live").checked = at === null;
    return show();
  }
  document.getElementById("first").onclick = function () { step(1); };
  document.getElementById("prev").onclick = function () { step(shown() - 1); };
  document.getElementById("next").onclick = function () { step(shown() + 1); };
  document.getElementById("last").onclick = function () { step(version); };
  document.getElementById("live").onchange = function (e) { if (e.target.checked) { step(version); } };
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT") { return; }
    var keys = { ArrowLeft: shown() - 1, ArrowRight: shown() + 1, Home: 1, End: version };
    if (e.key in keys) { e.preventDefault(); step(keys[e.key]); }
  });
  document.querySelector(".controls").hidden = false;
  document.getElementById("log").textContent = "";

  // Following live: a short poll of the summary every few seconds. Each request
  // answers at once, so no server thread is ever held open waiting.
  function poll() {
    if (busy || document.hidden) { return; }
    get("").then(function (s) {
      if (s.version !== version) {
        version = s.version;
        pullLog();
        if (document.getElementById("live").checked) { at = null; show(); }
        else { document.getElementById("position").textContent = shown() + " / " + version; }
      }
    }).catch(function () {});
  }
  setInterval(poll, 2000);
  pullLog().then(show);
})();
