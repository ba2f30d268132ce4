// The player's own page (/me): the games waiting on the player first, then the
// player's other games, the open games keeping a seat for the player (Accept, Decline),
// the leagues.
//
// The player token comes from the address's fragment (#token=...), which is never
// sent to the server in an address; this script sends it only in an
// Authorization header to GET /v1/players/me (and, through seats.js, POST
// /v1/games/{id}/join or .../decline to answer an invitation, POST /v1/leagues/{id}/join,
// .../decline or .../start for a league).
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

  function answer(g, what, li) {
    var seats = window.refereeSeats, buttons = li.querySelectorAll("button");
    if (what === "decline" && !window.confirm("Decline the seat kept for you in " + (g.title || g.game) +
        "? The game is then cancelled for everyone.")) { return; }
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
    seats.post(g.id, what, what === "join" ? { seat: g.seat } : {}, g.stacked).then(function (res) {
      if (res.ok) {
        say("");
        status.textContent = what === "join" ? "You took seat " + g.seat + " of " + (g.title || g.game) + " " + g.id + "." :
          "You declined " + (g.title || g.game) + " " + g.id + ": it is cancelled.";
        load();
        return;
      }
      Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
      say((what === "join" ? "Not joined: " : "Not declined: ") + seats.refusal(res));
    }, function () {
      Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
      say("No answer from the referee. Try again.");
    });
  }

  function invitationItem(g) {
    var li = el("li"), a = el("a", (g.title || g.game) + ": " + (g.players || []).map(function (p, i) {
      return i === g.seat ? "you" : (p || "an open seat");
    }).join(", "));
    a.href = "/games/" + encodeURIComponent(g.id) + "#token=" + encodeURIComponent(token);
    li.appendChild(a);
    li.appendChild(el("small", (g.inviter ? "invited by " + g.inviter + " · " : "") + "seat " + g.seat + " · " + g.id));
    [["Accept", "join"], ["Decline", "decline"]].forEach(function (pair) {
      var b = el("button", pair[0]);
      b.type = "button";
      b.className = pair[1];
      b.setAttribute("aria-label", pair[0] + " " + (g.title || g.game) + " " + g.id + " at seat " + g.seat);
      b.addEventListener("click", function () { answer(g, pair[1], li); });
      li.appendChild(b);
    });
    return li;
  }

  function leagueCall(id, what) {
    return fetch("/v1/leagues/" + encodeURIComponent(id) + "/" + what, {
      method: "POST", headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
      body: what === "join" ? "{}" : undefined
    });
  }

  function leagueButton(lg, label, what, li, done, confirmText) {
    var b = el("button", label);
    b.type = "button";
    b.className = what;
    b.setAttribute("aria-label", label + " the league " + (lg.name || lg.id));
    b.addEventListener("click", function () {
      if (confirmText && !window.confirm(confirmText)) { return; }
      var buttons = li.querySelectorAll("button");
      Array.prototype.forEach.call(buttons, function (x) { x.disabled = true; });
      leagueCall(lg.id, what).then(function (res) {
        if (res.ok) { say(""); status.textContent = done; load(); return; }
        Array.prototype.forEach.call(buttons, function (x) { x.disabled = false; });
        return res.json().then(function (p) { say(label + ": refused. " + (p.detail || res.status)); },
                               function () { say(label + ": refused (" + res.status + ")."); });
      }, function () {
        Array.prototype.forEach.call(buttons, function (x) { x.disabled = false; });
        say("No answer from the referee. Try again.");
      });
    });
    li.appendChild(b);
  }

  function leagueInvitationItem(lg) {
    var li = el("li"), a = el("a", lg.name + ": a " + lg.format + " league of " + (lg.title || lg.game));
    a.href = "/leagues/" + encodeURIComponent(lg.id);
    li.appendChild(a);
    if (lg.organiser) { li.appendChild(el("small", " invited by " + lg.organiser + " ")); }
    leagueButton(lg, "Accept", "join", li, "You joined the league " + lg.name + ".");
    leagueButton(lg, "Decline", "decline", li, "You declined the league " + lg.name + ".",
                 "Decline the league " + lg.name + "? You will not be paired in it.");
    return li;
  }

  function leagueItem(lg) {
    var li = el("li"), a = el("a", lg.name || lg.id);
    a.href = "/leagues/" + encodeURIComponent(lg.id);
    li.appendChild(a);
    li.appendChild(el("small", " " + lg.status));
    if (lg.status === "waiting" && me && lg.organiser === me.id) {
      leagueButton(lg, "Start", "start", li, "You started the league " + lg.name + ".",
                   "Start the league " + lg.name + " with the players who have joined?");
    }
    return li;
  }

  // The games waiting on the player are listed apart (at most a bound of them, the
  // nearest deadline first); current_games comes a page at a time, those waiting
  // first: each page adds the games not listed yet to "Your other games".
  var listed = {}, next = null, me = null;

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

  function show(got) {
    me = got;
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
    fill($("league-invitations"), me.league_invitations, "No league is inviting you.", leagueInvitationItem);
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
