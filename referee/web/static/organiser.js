// The organiser's page (/organiser): the open disputes of every game the admin
// token in the address's fragment (#token=...) manages; a league's admin token
// manages every game of its league. The token is sent only in an Authorization
// header to GET /v1/disputes, and each game's link carries it in its fragment.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var alertBox = $("organiser-alert"), status = $("organiser-status"), list = $("open-disputes");
  if (!alertBox || !list) { return; }
  var m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  var token = m ? decodeURIComponent(m[1]) : null;
  if (!token) { return; }

  function el(tag, text) {
    var e = document.createElement(tag);
    if (text) { e.textContent = text; }
    return e;
  }

  function item(d) {
    var li = el("li"), a = el("a"), p = d.dispute, who = d.players[p.by] || ("seat " + p.by);
    a.href = "/games/" + encodeURIComponent(d.game) + "#token=" + encodeURIComponent(token);
    a.textContent = d.title + ": " + d.players.join(", ");
    li.appendChild(a);
    li.appendChild(el("small", " " + d.game + (d.league ? " · league " + d.league : "") + " · " + d.status));
    var said = el("p", who + (p.seq ? " disputes event " + p.seq : " disputes the game as a whole") +
                  " (dispute " + p.id + ", " + p.at.slice(0, 16).replace("T", " ") + " UTC): \u201c" +
                  p.text + "\u201d");
    li.appendChild(said);
    return li;
  }

  status.textContent = "Reading your games\u2026";
  fetch("/v1/disputes", {headers: {"Authorization": "Bearer " + token}})
    .then(function (r) { return r.json().then(function (body) { return {ok: r.ok, body: body}; }); })
    .then(function (got) {
      if (!got.ok) {
        status.textContent = "";
        alertBox.textContent = got.body.detail || "The referee refused the token.";
        return;
      }
      var found = got.body.disputes;
      status.textContent = found.length ? found.length + " open dispute" + (found.length === 1 ? "" : "s") + ":"
                                        : "No open dispute in your games.";
      list.textContent = "";
      found.forEach(function (d) { list.appendChild(item(d)); });
      list.hidden = !found.length;
    })
    .catch(function () { status.textContent = ""; alertBox.textContent = "The referee could not be reached."; });
}());
