// One game's page: step through positions, follow the game live, a seat's view.
// The seat's token is read from the address's fragment (#token=...), which the
// browser never sends to the server; this script sends it only in an
// Authorization header. No library, no network but this server.
// Following live is a long poll of the game's events (/events?after=N&wait=25):
// the server answers as soon as something happens, so nothing is asked again and
// again while the game stands still.
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
  var title = root.dataset.title;
  var status = root.dataset.status;
  var logSeen = 0;
  var seen = version;  // the last event the long poll has had
  var newsFrom = at === null ? null : version;  // the version when the page stopped following: news is what came after
  var WAIT = 25;  // seconds a long poll may be held (the most the API allows)

  function auth() { return token ? { "Authorization": "Bearer " + token } : {}; }
  function get(path) {
    return fetch(base + path, { headers: auth(), cache: "no-store" }).then(function (r) {
      if (!r.ok) { throw new Error(path + ": " + r.status); }
      return (r.headers.get("Content-Type") || "").indexOf("json") >= 0 ? r.json() : r.text();
    });
  }
  function shown() { return at === null ? version : at; }
  function q() { return at === null ? "" : "?at=" + at; }

  var drawn = null;
  function drawPicture(svgText) {
    if (svgText === drawn) { return; }  // the same picture again: keep it (and the focus in it)
    drawn = svgText;
    var doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
    var pic = document.getElementById("picture");
    pic.textContent = "";
    pic.appendChild(document.importNode(doc.documentElement, true));
  }
  // A finished game's result, as the server writes it on the page and on the
  // picture (referee/web/pictures.py, outcome): the winners by name, then why.
  function outcome(result, names, aborted) {
    if (!result) { return null; }
    var winners = (result.winners || []).filter(function (s) { return s >= 0 && s < names.length; });
    var won = winners.map(function (s) { return names[s]; });
    var head = aborted || !won.length ? "Game over: no winner"
      : (won.length === 1 ? "Game over: " + won[0] + " wins"
        : "Game over: a draw between " + won.slice(0, -1).join(", ") + " and " + won[won.length - 1]);
    var reason = String(result.reason || "").replace(/\b[Ss]eat (\d+)\b/g, function (m, n) {
      return parseInt(n, 10) < names.length ? names[parseInt(n, 10)] : m;
    });
    return { head: head, reason: reason, winners: winners, mark: winners.length === 1 ? "winner" : "draw" };
  }
  function shortDuration(seconds) {
    // as the server writes it (referee/web short_duration): the two largest units
    var n = Math.max(0, Math.floor(seconds)), out = [];
    var units = [["d", 86400], ["h", 3600], ["m", 60], ["s", 1]];
    for (var k = 0; k < units.length && out.length < 2; k++) {
      if (n >= units[k][1] || (units[k][0] === "s" && !out.length)) {
        out.push(Math.floor(n / units[k][1]) + units[k][0]);
        n %= units[k][1];
      } else if (out.length) { break; }
    }
    return out.join(" ");
  }
  function namesOf(summary) {
    return summary.players.map(function (p, i) {
      return typeof p === "string" ? p : (p.name || "seat " + i);
    });
  }
  function drawPlayers(summary, view) {
    var body = document.getElementById("players");
    body.textContent = "";
    status = summary.status;
    var names = namesOf(summary);
    document.getElementById("heading").textContent = title + ": " + names.join(", ");
    var result = outcome(view.result, names, view.status === "aborted");
    // seats that left a game that plays on (house rule on_resign): the referee plays them
    var left = (view.view && view.view.left) || [];
    // a bank clock's banks: a column of their own, shown only under a bank clock
    var banks = {};
    (summary.banks || []).forEach(function (b) { banks[b.seat] = shortDuration(b.seconds); });
    var banked = (summary.banks || []).length > 0;
    var head = document.getElementById("players-head");
    var bankHead = document.getElementById("bank-head");
    if (banked && !bankHead && head) {
      bankHead = document.createElement("th");
      bankHead.id = "bank-head";
      bankHead.textContent = "time bank";
      head.insertBefore(bankHead, head.lastElementChild);
    } else if (!banked && bankHead) {
      bankHead.remove();
    }
    names.forEach(function (name, i) {
      var tr = document.createElement("tr");
      var won = result && result.winners.indexOf(i) >= 0;
      if (won) { tr.className = "winner"; }
      var cells = [i, name + (view.seat === i ? " (you)" : ""),
                   summary.scores ? summary.scores[i] : ""];
      if (banked) { cells.push(banks[i] || ""); }
      cells.push(won ? result.mark : left.indexOf(i) >= 0 ? "left the game"
        : (view.to_act.indexOf(i) >= 0 && view.status === "active" ? "to play" : ""));
      cells.forEach(function (c) { var td = document.createElement("td"); td.textContent = c; tr.appendChild(td); });
      body.appendChild(tr);
    });
    var box = document.getElementById("result");
    box.textContent = "";
    box.hidden = !result;
    if (result) {
      var strong = document.createElement("strong");
      strong.textContent = result.head;
      var span = document.createElement("span");
      span.textContent = result.reason;
      box.appendChild(strong); box.appendChild(document.createTextNode(" ")); box.appendChild(span);
    }
    document.getElementById("status").textContent = view.status;
  }
  function markLog() {
    var items = document.querySelectorAll("#log li");
    for (var i = 0; i < items.length; i++) {
      items[i].classList.toggle("current", parseInt(items[i].value, 10) === shown());
    }
  }
  // Each event's place in the transparency log: in a signed checkpoint or not yet,
  // and how many witnesses cosigned one that holds it (/v1/transparency/games/ID).
  var tlog = document.getElementById("log").dataset.tlog === "1";
  var places = {};
  function placeOf(li) {
    var p = places[parseInt(li.value, 10)];
    var span = li.querySelector(".tlog") || li.appendChild(document.createElement("span"));
    var inside = !!(p && p.in_checkpoint);
    span.className = "tlog" + (inside ? " in" : "");
    span.textContent = !inside ? "awaiting checkpoint" : "\u2713 checkpoint" +
      (p.witnesses ? " \u00b7 " + p.witnesses + (p.witnesses === 1 ? " witness" : " witnesses") : "");
    span.title = !p ? "not yet in the transparency log" : "leaf " + p.index + " of the transparency log" +
      (inside ? ", cosigned by " + p.witnesses + " witness(es)" : ", in no checkpoint yet");
  }
  function pullPlaces() {
    if (!tlog) { return Promise.resolve(); }
    return fetch("/v1/transparency/games/" + encodeURIComponent(id), { cache: "no-store" }).then(function (r) {
      return r.ok ? r.json() : { events: [] };
    }).then(function (ans) {
      places = {};
      ans.events.forEach(function (p) { places[p.seq] = p; });
      var items = document.querySelectorAll("#log li");
      for (var i = 0; i < items.length; i++) { placeOf(items[i]); }
    }).catch(function () {});
  }
  function pullLog() {
    return get("/log?limit=1000&after=" + logSeen).then(function (ans) {
      var ol = document.getElementById("log");
      ans.lines.forEach(function (l) {
        if (l.seq <= logSeen) { return; }  // two answers crossing: each line once
        var li = document.createElement("li");
        li.value = l.seq; li.textContent = l.text;
        if (tlog) { li.appendChild(document.createTextNode(" ")); placeOf(li); }
        ol.appendChild(li); logSeen = l.seq;
      });
      if (ans.lines.length) { ol.scrollTop = ol.scrollHeight; }
      markLog();
      // new events are integrated within a second or two: look again a little later
      if (ans.lines.length) { setTimeout(pullPlaces, 2500); }
    });
  }
  // witnesses cosign now and then: look again every 30 s while the page is seen
  setInterval(function () { if (document.visibilityState === "visible") { pullPlaces(); } }, 30000);
  function drawNews() {
    var btn = document.getElementById("news");
    var n = newsFrom === null ? 0 : version - newsFrom;
    btn.hidden = at === null || n <= 0;
    btn.textContent = n === 1 ? "1 new event: show it" : n + " new events: show them";
    document.getElementById("position").textContent = shown() + " / " + version;
  }
  function show() {
    return Promise.all([get("/board.svg" + q()), get("/view" + q()), get("")]).then(function (r) {
      drawPicture(r[0]);
      version = r[2].version;
      document.getElementById("text").textContent = r[1].text;
      drawPlayers(r[2], r[1]);
      drawNews();
      document.getElementById("seen-as").textContent = r[1].viewer === "seat"
        // the player's name, the seat's number beside it for whoever plays by numbers
        ? (namesOf(r[2])[r[1].seat] || "seat " + r[1].seat) + "'s view (seat " + r[1].seat + ")"
        : (r[1].viewer === "admin" ? "the organiser's view" : "spectator's view");
      var url = location.pathname + q() + location.hash;
      history.replaceState(null, "", url);
      markLog();
      // play.js (a seat's moves) takes it from here: the picture's handles, the legal moves
      root.dispatchEvent(new CustomEvent("referee:drawn", { detail: { view: r[1], summary: r[2], at: at } }));
    }).catch(function (e) {
      document.getElementById("seen-as").textContent = "could not load: " + e.message;
    });
  }
  // One drawing at a time, the latest wish last: news arriving while a position
  // is being drawn is drawn after it.
  var drawing = Promise.resolve();
  function redraw() { drawing = drawing.then(show); return drawing; }
  function step(to) {
    if (to >= version) { at = null; newsFrom = null; } else {
      if (at === null) { newsFrom = version; }
      at = Math.max(1, to);
    }
    document.getElementById("live").checked = at === null;
    return redraw();
  }
  document.getElementById("first").onclick = function () { step(1); };
  document.getElementById("prev").onclick = function () { step(shown() - 1); };
  document.getElementById("next").onclick = function () { step(shown() + 1); };
  document.getElementById("last").onclick = function () { step(version); };
  document.getElementById("live").onchange = function (e) {
    if (e.target.checked) { step(version); } else if (at === null) { at = version; newsFrom = version; drawNews(); }
  };
  document.getElementById("news").onclick = function () { step(version); };
  root.addEventListener("referee:latest", function () { step(Infinity); });  // after a move of this page's
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || (e.target.closest && e.target.closest("#play, #picture"))) { return; }
    var keys = { ArrowLeft: shown() - 1, ArrowRight: shown() + 1, Home: 1, End: version };
    if (e.key in keys) { e.preventDefault(); step(keys[e.key]); }
  });
  document.querySelector(".controls").hidden = false;
  document.getElementById("log").textContent = "";

  // Following live: ask for the events after the last one seen, held by the
  // server until there are some (or 25 s pass: then simply ask again). New
  // events bring the log's new lines, and the new position unless an earlier
  // one is being looked at, which stays shown while a button tells of the news.
  function over() { return status === "finished" || status === "aborted"; }
  function later(ms) { setTimeout(follow, ms); }
  function follow() {
    if (over() && seen >= version) { return; }  // nothing more will happen
    var asked = Date.now();
    fetch(base + "/events?limit=1000&wait=" + WAIT + "&after=" + seen, { headers: auth(), cache: "no-store" })
      .then(function (r) {
        var pause = parseInt(r.headers.get("Retry-After") || "0", 10) * 1000;
        if (r.status === 401 || r.status === 403 || r.status === 404) {  // refused for good
          document.getElementById("seen-as").textContent = "stopped following: " + r.status;
          return;
        }
        if (!r.ok) { return later(Math.max(pause, 5000)); }  // too many requests, the server away
        return r.json().then(function (ans) {
          var evs = ans.events;
          if (evs.length) {
            seen = evs[evs.length - 1].seq;
            version = Math.max(ans.version, seen);
            pullLog();
            if (at === null) { redraw(); } else { drawNews(); get("").then(function (s) { status = s.status; }); }
          }
          // Past the server's bound on waiting requests the answer comes at once
          // with Retry-After; a server that holds no long poll at all answers
          // at once without it: either way, ask again gently, not in a tight loop.
          if (!evs.length && !pause && Date.now() - asked < 1000) { pause = 2000; }
          later(evs.length ? 0 : pause);
        });
      })
      .catch(function () { later(5000); });
  }
  pullLog().then(pullPlaces).then(redraw).then(follow);
})();
