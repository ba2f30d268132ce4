// The player's own page (/me): the games waiting on the player first, then the
// player's other games, the open games keeping a seat for the player, the leagues.
//
// The player token comes from the address's fragment (#token=...), which is never
// sent to the server in an address; this script sends it only in an
// Authorization header to GET /v1/players/me (and POST /v1/games/{id}/join).
// Each game's link carries the same token in its fragment, so the game page
// plays the player's seat with it.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var alertBox = $("me-alert"), status = $("me-status"), lists = $("me-lists");
  if (!alertBox || !lists) { return; }
  var m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  var token = m ? decodeURIComponent(m[1]) : null;

  function say(text) { alertBox.textContent = text; }

  function el(tag, text) {
    var e = document.createElement(tag);
    if (text) { e.textContent = text; }
    return e;
  }

  function gameItem(g, extra) {
    var li = el("li"), a = el("a");
    a.href = "/games/" + encodeURIComponent(g.id) + "#token=" + encodeURIComponent(token);
    a.textContent = (g.title || g.game) + ": " + (g.players || []).join(", ") + " (seat " + g.seat + ")";
    li.appendChild(a);
    li.appendChild(el("small", " " + g.id + (extra ? " · " + extra : "")));
    return li;
  }

  function fill(list, items, empty, make) {
    list.textContent = "";
    if (!items || !items.length) { list.appendChild(el("li", empty)); return; }
    items.forEach(function (it) { list.appendChild(make(it)); });
  }

  function join(g, button) {
    button.disabled = true;
    fetch("/v1/games/" + encodeURIComponent(g.id) + "/join", {
      method: "POST", headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
      body: JSON.stringify({ seat: g.seat })
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (body) {
        if (r.ok) { say(""); status.textContent = "You joined " + g.game + " " + g.id + "."; load(); return; }
        button.disabled = false;
        say("Not joined: " + (body.detail || body.title || ("the referee answered " + r.status)));
      });
    }, function () { button.disabled = false; say("Not joined: no answer from the referee. Try again."); });
  }

  function invitationItem(g) {
    var li = el("li", g.game + " (seat " + g.seat + ") "), b = el("button", "Join");
    b.type = "button";
    b.setAttribute("aria-label", "Join " + g.game + " " + g.id + " at seat " + g.seat);
    b.addEventListener("click", function () { join(g, b); });
    li.appendChild(el("small", g.id + " "));
    li.appendChild(b);
    return li;
  }

  function leagueItem(lg) {
    var li = el("li"), a = el("a", lg.name || lg.id);
    a.href = "/leagues/" + encodeURIComponent(lg.id);
    li.appendChild(a);
    return li;
  }

  // The games waiting on the player are listed apart (at most a bound of them, the
  // nearest deadline first); current_games comes a page at a time, those waiting
  // first: each page adds the games not listed yet to "Your other games".
  var listed = {}, next = null;

  function currentItem(g) { return gameItem(g, g.waiting ? "waiting on you" : g.status); }

  function addPage(games) {
    var list = $("current"), fresh = (games || []).filter(function (g) { return !listed[g.id]; });
    if (fresh.length && list.getAttribute("data-empty")) { list.textContent = ""; list.removeAttribute("data-empty"); }
    fresh.forEach(function (g) { listed[g.id] = true; list.appendChild(currentItem(g)); });
  }

  function showMore(cursor) {
    next = cursor;
    $("more-games").hidden = !cursor;
  }

  function more() {
    var button = $("more-games");
    button.disabled = true;
    fetch("/v1/players/me?after=" + encodeURIComponent(next), { headers: { "Authorization": "Bearer " + token } })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (me) { button.disabled = false; addPage(me.current_games); showMore(me.current_games_next); },
            function () { button.disabled = false; say("Your other games could not be read. Try again."); });
  }

  function show(me) {
    listed = {};
    (me.waiting || []).forEach(function (g) { listed[g.id] = true; });
    fill($("waiting"), me.waiting, "No game is waiting on you.", function (g) {
      return gameItem(g, g.deadline ? "play by " + g.deadline.slice(0, 16).replace("T", " ") + " UTC" : "");
    });
    fill($("current"), [], "No other game in play.", currentItem);
    $("current").setAttribute("data-empty", "1");
    addPage(me.current_games);
    showMore(me.current_games_next);
    fill($("invitations"), me.invitations, "No open game is keeping a seat for you.", invitationItem);
    fill($("leagues"), me.leagues, "You are in no league.", leagueItem);
    var n = (me.waiting || []).length;
    $("me-title").textContent = me.name + "'s games";
    status.textContent = n ? n + (n === 1 ? " game is" : " games are") + " waiting on you." :
      "No game is waiting on you.";
    lists.hidden = false;
  }

  function load() {
    fetch("/v1/players/me", { headers: { "Authorization": "Bearer " + token } }).then(function (r) {
      if (r.status === 401) {
        lists.hidden = true;
        say("This token is not a player's token the referee knows. Open this page with the " +
            "token you got when you registered: /me#token=YOUR_PLAYER_TOKEN.");
        return null;
      }
      if (!r.ok) { say("The referee could not answer (" + r.status + "). Reload the page to try again."); return null; }
      return r.json();
    }).then(function (me) { if (me) { say(""); show(me); } },
            function () { say("No answer from the referee. Reload the page to try again."); });
  }

  $("more-games").addEventListener("click", more);

  // another token in the address (a fragment change loads nothing): start again with it
  window.addEventListener("hashchange", function () { location.reload(); });
  if (!token) {
    say("No player token: open this page as /me#token=YOUR_PLAYER_TOKEN, with the token " +
        "POST /v1/players gave you when you registered.");
    status.textContent = "";
    return;
  }
  load();
}());
