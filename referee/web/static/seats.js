// Seats of open games, taken or refused from the page: the lobby (/) and an open game's
// page get a Join button for a seat anyone may take and, for a seat kept for the
// player, Accept and Decline (POST /v1/games/{id}/join and .../decline).
//
// The player token comes from the address's fragment (#token=..., as /me takes it),
// which is never sent to the server in an address; this script sends it only in an
// Authorization header. Without one, the page asks for it and puts it in the fragment.
// /me answers its invitations with the same calls (window.refereeSeats).
//
// A join carries the player's entropy for the deal (docs/log-format.md, "The seed"):
// what they typed in the page's entropy field, else 32 random bytes drawn here by
// the browser (crypto.getRandomValues), never the referee's; none for a game dealt
// from a given seed or deck, which takes none.
(function () {
  "use strict";
  var m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  var token = m ? decodeURIComponent(m[1]) : null;

  function el(tag, text) {
    var e = document.createElement(tag);
    if (text) { e.textContent = text; }
    return e;
  }

  function randomHex(n) {
    var bytes = new Uint8Array(n);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function contribution() {
    var own = document.getElementById("seat-entropy");
    return own && own.value ? own.value : randomHex(32);
  }

  function post(gameId, what, body, stacked) {
    body = body || {};
    if (what === "join" && !stacked && body.entropy === undefined) { body.entropy = contribution(); }
    return fetch("/v1/games/" + encodeURIComponent(gameId) + "/" + what, {
      method: "POST", headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (b) { return { ok: r.ok, status: r.status, body: b }; });
    });
  }

  function refusal(res) {
    return (res.body && (res.body.detail || res.body.title)) || ("the referee answered " + res.status);
  }

  window.refereeSeats = { token: token, post: post, refusal: refusal };

  var spots = Array.prototype.slice.call(document.querySelectorAll(".seat-actions"));
  var form = document.querySelector(".token-form");
  var alertBox = document.querySelector(".seat-alert"), status = document.querySelector(".seat-status");
  if (!spots.length || !form) { return; }

  function say(text) { alertBox.textContent = text; }
  function tell(text) { status.textContent = text; }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var given = form.querySelector("input").value.trim();
    if (given) { location.hash = "token=" + encodeURIComponent(given); }
  });
  // another token in the address (a fragment change loads nothing): start again with it
  window.addEventListener("hashchange", function () { location.reload(); });

  function playLink(gameId) {
    var a = el("a", "Play: every seat is taken");
    a.href = "/games/" + encodeURIComponent(gameId) + "#token=" + encodeURIComponent(token);
    return a;
  }

  function answer(spot, what, seat) {
    var id = spot.getAttribute("data-game"), title = spot.getAttribute("data-title");
    if (!token) {
      form.hidden = false;
      form.querySelector("input").focus();
      say("Give your player token first: the seat is taken as that player.");
      return;
    }
    if (what === "decline" && !window.confirm("Decline the seat kept for you in " + title +
        "? The game is then cancelled for everyone.")) { return; }
    var buttons = spot.querySelectorAll("button");
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
    post(id, what, what === "join" && seat !== null ? { seat: seat } : {},
         spot.getAttribute("data-stacked") === "true").then(function (res) {
      if (!res.ok) {
        Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
        say((what === "join" ? "Not joined: " : "Not declined: ") + refusal(res));
        return;
      }
      say("");
      spot.textContent = "";
      if (what === "decline") {
        spot.appendChild(el("span", "Declined: the game is cancelled."));
        tell("You declined " + title + " " + id + ": it is cancelled.");
      } else if (res.body.status === "open") {
        spot.appendChild(el("span", "You hold seat " + res.body.seat + "; the other seats are still to take."));
        tell("You hold seat " + res.body.seat + " of " + title + " " + id + ".");
      } else {
        spot.appendChild(playLink(id));
        tell("You hold seat " + res.body.seat + " of " + title + " " + id + ", and the game has started.");
      }
    }, function () {
      Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
      say("No answer from the referee. Try again.");
    });
  }

  function button(spot, text, what, seat) {
    var b = el("button", text), title = spot.getAttribute("data-title"), id = spot.getAttribute("data-game");
    b.type = "button";
    b.className = what;
    b.setAttribute("aria-label", text + " " + title + " " + id + (seat !== null ? ", seat " + seat : ""));
    b.addEventListener("click", function () { answer(spot, what, seat); });
    spot.appendChild(b);
  }

  function fill(me) {
    var kept = {};
    (me.invitations || []).forEach(function (i) { kept[i.id] = i.seat; });
    spots.forEach(function (spot) {
      var id = spot.getAttribute("data-game"), seated = (spot.getAttribute("data-players") || "").split(" ");
      spot.textContent = "";
      if (seated.indexOf(me.id) >= 0) {
        spot.appendChild(el("span", "You hold a seat."));
      } else if (Object.prototype.hasOwnProperty.call(kept, id)) {
        button(spot, "Accept", "join", kept[id]);
        button(spot, "Decline", "decline", null);
      } else if (Number(spot.getAttribute("data-open")) > 0) {
        button(spot, "Join", "join", null);
      }
    });
  }

  if (!token) {
    form.hidden = false;
    fill({ id: null, invitations: [] });
    return;
  }
  fetch("/v1/players/me", { headers: { "Authorization": "Bearer " + token } }).then(function (r) {
    if (r.status === 401) {
      form.hidden = false;
      say("This token is not a player's token the referee knows: give the one you got when you registered.");
      return null;
    }
    if (!r.ok) { say("The referee could not answer (" + r.status + "). Reload the page to try again."); return null; }
    return r.json();
  }).then(function (me) {
    if (me) { tell("Playing as " + me.name + "."); fill(me); }
  }, function () { say("No answer from the referee. Reload the page to try again."); });
}());
