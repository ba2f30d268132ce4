// Playing from the game page: a seat's legal moves on the picture and as a list,
// a move built by clicks, shown in words, confirmed with Play, and sent once.
//
// The token comes from the address's fragment (#token=...), never sent to the
// server in an address; this script sends it only in an Authorization header.
// It never looks inside the token: GET /view says which seat it acts for, so any
// token the API accepts for a seat works the same. watch.js draws the page and
// follows the game; it tells this script of each drawing ("referee:drawn") and
// is asked to show the latest position ("referee:latest") after a move.
//
// A move goes with the version its legal list was read at (expected_version) and
// an Idempotency-Key. A lost answer (no connection, a proxy's 502-504, the store
// away, 429) is sent again with the same key, so it is played once at most; a
// refusal is said in words in the role="alert" element and the page catches up.
(function () {
  "use strict";
  var root = document.getElementById("game");
  var panel = document.getElementById("play");
  var m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (!root || !panel || !window.fetch || !m) { return; }
  var token = decodeURIComponent(m[1]);
  var game = root.dataset.game;
  var base = "/v1/games/" + encodeURIComponent(root.dataset.id);
  var Moves = window.RefereeMoves;
  var $ = function (id) { return document.getElementById(id); };
  var ui = { status: $("play-status"), alert: $("play-alert"), chosen: $("chosen"), play: $("play-button"),
             clear: $("play-clear"), note: $("moves-note"), moves: $("moves"), picture: $("picture"),
             parts: $("parts") };

  var legal = null;        // the last GET /legal: {seat, version, moves, text}
  var ctx = { view: {}, seat: null, names: [] };  // the current view, for words
  var keys = [];           // per legal move: its picture keys (moves.js)
  var prefix = [];         // the keys clicked so far
  var chosen = null;       // index of the move chosen, or null
  var confirming = false;  // resign chosen and Play pressed once: the next press resigns
  var pending = null;      // the move being sent: {body, key, words}; kept until answered
  var sending = false;
  var playedAt = 0;        // the version our own last move made
  var past = false;        // the picture shows an earlier position
  var asked = 0;           // loads started: only the latest one's answer is used
  var focusAfter = false;  // put focus back into the list once it is drawn again
  var news = "";           // said with the next position: what was played, a choice cleared
  var players = [];        // the players' names, from the summary watch.js drew

  function say(text) { ui.status.textContent = text; }
  function warn(text) {
    ui.alert.textContent = "";  // a change, so the same words are announced again
    ui.alert.textContent = text;
  }
  function api(method, path, body, key) {
    var headers = { "Authorization": "Bearer " + token };
    if (body !== undefined) { headers["Content-Type"] = "application/json"; }
    if (key) { headers["Idempotency-Key"] = key; }
    return fetch(base + path, { method: method, headers: headers, body: body, cache: "no-store" });
  }
  function json(r) {
    return (r.headers.get("Content-Type") || "").indexOf("json") >= 0 ? r.json().catch(function () { return {}; })
                                                                       : Promise.resolve({});
  }
  function newKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return "page-" + Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  function names(players) {
    return players.map(function (p, i) { return typeof p === "string" ? p : (p.name || "seat " + i); });
  }

  // ---- the legal moves and the current view ---------------------------------
  // `view`: the current position's view when watch.js has just drawn it (else
  // it is asked for beside the legal moves).
  function load(view, tries) {
    var n = ++asked;
    var asks = [api("GET", "/legal"), view ? null : api("GET", "/view")];
    return Promise.all(asks).then(function (r) {
      return Promise.all([r[0].status, json(r[0]), view ? 200 : r[1].status, view || json(r[1])]);
    }).then(function (a) {
      if (n !== asked) { return; }  // a later load is on its way
      if (a[0] !== 200 || a[2] !== 200) {  // the admin's token, one not accepted any more, or busy
        panel.hidden = a[0] === 403;
        if (!panel.hidden) { say("Your moves cannot be shown: " + (a[1].detail || a[1].title || a[0])); }
        if (a[0] === 429 || a[0] >= 500 || a[2] === 429 || a[2] >= 500) {
          setTimeout(function () { if (n === asked) { load(null); } }, 3000);  // ask again, gently
        }
        return;
      }
      if (a[1].version !== a[3].version && (tries || 0) < 3) { return load(null, (tries || 0) + 1); }
      show(a[1], a[3]);
    }).catch(function () {
      if (n !== asked) { return; }
      say("Cannot reach the referee; trying again in a moment.");
      setTimeout(function () { if (n === asked) { load(null); } }, 3000);
    });
  }

  function show(L, V) {
    var moved = legal !== null && L.version !== legal.version;
    if (sending) { return; }  // the answer to our move decides; load again after it
    if (moved && (prefix.length || chosen !== null) && L.version !== playedAt) {
      news = "The game moved on: your choice was cleared. Choose again.";
    }
    if (moved || legal === null) { prefix = []; chosen = null; }
    legal = L;
    ctx = { view: V.view, seat: V.seat, names: players };
    keys = L.moves.map(function (mv) { return Moves.picks(game, mv, ctx); });
    panel.hidden = false;
    panel.dataset.version = L.version;
    drawList();
    tell(V);
    if (news) { say(news + " " + ui.status.textContent); news = ""; }
    update();
    showOwn();
    if (focusAfter) {
      focusAfter = false;
      var first = ui.moves.querySelector("button");
      (first || $("play-heading")).focus();
    }
  }

  function tell(V) {
    if (V.status === "finished" || V.status === "aborted") {
      var r = V.result;
      say("The game is over" + (r && r.reason ? ": " + r.reason : "") + ".");
    } else if (V.view && (V.view.left || []).indexOf(V.seat) >= 0) {
      say("You have left this game: the referee plays your seat from now on, and it can no longer win.");
    } else if (!legal.moves.length) {
      say("The referee is taking its step; your moves will be here in a moment.");
    } else if (V.to_act.indexOf(V.seat) >= 0) {
      say("Your move. Click on the picture or choose a move below, then press Play.");
    } else {
      say("Waiting for " + V.to_act.map(function (s) { return ctx.names[s] || "seat " + s; }).join(", ") + ".");
    }
  }

  function drawList() {
    ui.moves.textContent = "";
    legal.moves.forEach(function (mv, i) {
      var li = document.createElement("li");
      var b = document.createElement("button");
      b.type = "button";
      b.className = "move" + (mv.type === "resign" ? " resign" : "");
      if (mv.type === "resign") { li.className = "resign-item"; }  // apart from the moves, smaller
      b.dataset.index = i;
      var code = document.createElement("code");
      code.textContent = legal.text[i];
      var words = document.createElement("span");
      words.textContent = Moves.words(game, mv, ctx);
      b.appendChild(code);
      b.appendChild(document.createTextNode(" "));
      b.appendChild(words);
      li.appendChild(b);
      ui.moves.appendChild(li);
    });
  }

  // ---- building a move ------------------------------------------------------
  function fits(i) {
    var k = keys[i];
    if (prefix.length > k.length) { return false; }
    if (Moves.unordered(game, legal.moves[i])) {
      var left = k.slice();
      return prefix.every(function (p) { var at = left.indexOf(p); if (at < 0) { return false; } left.splice(at, 1); return true; });
    }
    return prefix.every(function (p, j) { return k[j] === p; });
  }
  function candidates() {
    var out = [];
    for (var i = 0; i < keys.length; i++) { if (fits(i)) { out.push(i); } }
    return out;
  }
  function nextKeys() {  // what may be clicked next: each candidate's next key
    var next = {};
    candidates().forEach(function (i) {
      var k = keys[i];
      if (Moves.unordered(game, legal.moves[i])) {
        var left = k.slice();
        prefix.forEach(function (p) { left.splice(left.indexOf(p), 1); });
        left.forEach(function (x) { next[x] = true; });
      } else if (k.length > prefix.length) { next[k[prefix.length]] = true; }
    });
    return next;
  }
  function firstKeys() {
    var first = {};
    keys.forEach(function (k, i) {
      (Moves.unordered(game, legal.moves[i]) ? k : k.slice(0, 1)).forEach(function (x) { first[x] = true; });
    });
    return first;
  }
  function named(k) {  // a key in words: what was picked, and the buttons beside the picture
    var p = k.split(":");
    switch (p[0]) {
      case "seat": return ctx.names[+p[1]] || "seat " + p[1];
      case "discarded": return p[1] + " from the discard pile";
      case "supply": return p[2] + " from the supply";
      case "castle": return "castle " + p[1];
      case "post": return p[1] === "king" ? "the King" : "the " + p[2] + " of castle " + p[1];
      case "attr": return "the " + p[2] + " of castle " + p[1];
      case "card": case "square": case "suit": case "level": return p[1];
      default: return p[0] + " " + p.slice(1).join(" ");
    }
  }

  function update() {
    if (!legal) { return; }
    var cands = candidates();
    if (chosen === null && prefix.length && cands.length === 1) { chosen = cands[0]; }
    var filtering = chosen === null && prefix.length > 0;
    var buttons = ui.moves.querySelectorAll("button.move");
    for (var i = 0; i < buttons.length; i++) {
      var idx = parseInt(buttons[i].dataset.index, 10);
      buttons[i].parentNode.hidden = filtering && cands.indexOf(idx) < 0;
      buttons[i].setAttribute("aria-pressed", idx === chosen ? "true" : "false");
      buttons[i].disabled = sending;
    }
    var resigning = chosen !== null && legal.moves[chosen].type === "resign";
    if (!resigning) { confirming = false; }
    ui.play.textContent = resigning ? (confirming ? "Yes, resign" : "Resign…") : "Play";
    if (resigning) {
      // Resigning ends the game: asked twice, never sent by one Enter on the list
      ui.chosen.textContent = confirming
        ? "Resigning ends the game, and you lose it. Press \u201cYes, resign\u201d to resign, or Clear to play on."
        : "Your move: resign (resign). Press \u201cResign\u2026\u201d and confirm to end the game.";
    } else if (chosen !== null) {
      ui.chosen.textContent = "Your move: " + Moves.words(game, legal.moves[chosen], ctx) + " (" +
        legal.text[chosen] + "). Press Play to send it.";
    } else if (prefix.length) {
      ui.chosen.textContent = "Chosen so far: " + prefix.map(named).join(", ") + ". " + cands.length +
        " moves go on from there: pick the next on the picture or one below.";
    } else {
      ui.chosen.textContent = legal.moves.length ? "No move chosen yet." : "";
    }
    ui.note.textContent = filtering ? "Only the moves that fit your choice are listed; Clear lists them all." : "";
    drawParts();
    panel.dataset.picked = prefix.length;  // how many keys of a move are picked (tests read it)
    ui.play.disabled = chosen === null || sending;
    ui.clear.disabled = (chosen === null && !prefix.length) || sending;
    decorate();
  }

  function choose(i) {
    chosen = i;
    prefix = keys[i].slice();
    update();
    // Play takes the focus, so Enter sends the move; not for a resignation, which
    // is asked for again first (the focus stays on its button)
    if (legal.moves[i].type !== "resign") { ui.play.focus(); }
  }
  function clear() { prefix = []; chosen = null; update(); }

  // ---- the picture's handles ------------------------------------------------
  // On a phone the picture scrolls sideways in its own box (watch.css). Once, when
  // the panel first shows, the box is scrolled to the seat's own cards (its hand)
  // if they lie beyond its edge, as a two-player King of Danger's second seat's
  // do; later the box stays where the player scrolled it.
  var shownOwn = false;
  function showOwn() {
    var box = ui.picture, own = box.querySelectorAll("svg .hand-card");
    if (shownOwn || !own.length) { return; }
    shownOwn = true;
    var left = Infinity;
    for (var i = 0; i < own.length; i++) { left = Math.min(left, own[i].getBoundingClientRect().left); }
    var b = box.getBoundingClientRect();
    // the hand's first card in sight already (always so on a wide screen): left as it is
    if (left >= b.left && left + 44 <= b.right) { return; }
    box.scrollLeft += left - b.left - 12;
  }
  function keysOf(el) {
    var out = (el.getAttribute("data-pick") || "").split(" ").filter(Boolean);
    if (el.hasAttribute("data-square")) { out.push("square:" + el.getAttribute("data-square")); }
    return out;
  }
  function handles() {
    var svg = ui.picture.querySelector("svg");
    return svg ? svg.querySelectorAll("[data-pick], [data-square]") : [];
  }
  function decorate() {
    var live = legal && !past && !sending;
    var next = live ? nextKeys() : {};
    var first = live ? firstKeys() : {};
    var els = handles();
    var svg = ui.picture.querySelector("svg");
    // An image's parts are hidden from assistive technology; a picture with
    // buttons in it is a group (still named by its title and description).
    if (svg) { svg.setAttribute("role", live && els.length ? "group" : "img"); }
    for (var i = 0; i < els.length; i++) {
      var el = els[i], ks = keysOf(el);
      var isNext = ks.some(function (k) { return next[k]; });
      var isFirst = ks.some(function (k) { return first[k]; });
      var picked = chosen !== null || prefix.length ? ks.some(function (k) { return prefix.indexOf(k) >= 0; }) : false;
      el.classList.toggle("next", isNext);
      el.classList.toggle("pickable", isNext || isFirst);
      el.classList.toggle("picked", picked);
      if (isNext || isFirst) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "button");
        el.setAttribute("aria-label", (picked ? "chosen: " : "choose ") + ks.map(named).join(", "));
      } else if (el.hasAttribute("tabindex")) {
        el.removeAttribute("tabindex");
        el.removeAttribute("role");
        el.removeAttribute("aria-label");
      }
    }
  }
  // The next keys no element of the picture carries (a Wizard's suit, squires,
  // another player): buttons beside the picture's handles, used the same way.
  function drawParts() {
    ui.parts.textContent = "";
    if (past || sending) { ui.parts.hidden = true; return; }
    var onPicture = {};
    var els = handles();
    for (var i = 0; i < els.length; i++) { keysOf(els[i]).forEach(function (k) { onPicture[k] = true; }); }
    var next = Object.keys(nextKeys()).filter(function (k) { return !onPicture[k]; }).sort();
    next.forEach(function (k) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "part";
      b.dataset.pick = k;
      b.textContent = named(k);
      ui.parts.appendChild(b);
    });
    ui.parts.hidden = !next.length;
  }
  ui.parts.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("button.part") : null;
    if (!b || sending) { return; }
    prefix.push(b.dataset.pick);
    chosen = null;
    update();
    var again = ui.parts.querySelector("button");  // the next part, or Play when the move is whole
    (chosen !== null ? ui.play : again || ui.play).focus();
  });
  function pick(target) {
    if (!legal || past || sending) { return false; }
    var next = nextKeys(), first = firstKeys();
    var restart = null;
    for (var el = target; el && el !== ui.picture; el = el.parentNode) {
      if (!el.getAttribute) { continue; }
      var ks = keysOf(el);
      for (var j = 0; j < ks.length; j++) {
        if (next[ks[j]]) {
          prefix.push(ks[j]);
          chosen = null;
          update();
          if (chosen !== null) { ui.play.focus(); }  // the move is whole: Play is next
          return true;
        }
        if (first[ks[j]] && restart === null) { restart = ks[j]; }
      }
    }
    if (restart === null) { return false; }
    prefix = [restart];
    chosen = null;
    update();
    if (chosen !== null) { ui.play.focus(); }
    return true;
  }
  ui.picture.addEventListener("click", function (e) { pick(e.target); });
  ui.picture.addEventListener("keydown", function (e) {
    if ((e.key === "Enter" || e.key === " ") && pick(e.target)) { e.preventDefault(); }
  });
  ui.moves.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("button.move") : null;
    if (b && !sending) { choose(parseInt(b.dataset.index, 10)); }
  });
  ui.clear.addEventListener("click", function () { clear(); ui.moves.querySelector("button") && ui.moves.querySelector("button").focus(); });
  ui.play.addEventListener("click", send);

  // ---- sending --------------------------------------------------------------
  var WAITS = [500, 1000, 2000, 4000, 8000];  // between tries of one move whose answer was lost
  function send() {
    if (chosen === null || sending) { return; }
    if (legal.moves[chosen].type === "resign" && !confirming) {
      confirming = true;  // asked once more; Clear (now focused) plays on
      update();
      say("Resign? This ends the game and you lose it.");
      ui.clear.focus();
      return;
    }
    var body = JSON.stringify({ move: legal.moves[chosen], expected_version: legal.version });
    if (!pending || pending.body !== body) {  // the same move again keeps its key
      pending = { body: body, key: newKey(), words: Moves.words(game, legal.moves[chosen], ctx) };
    }
    sending = true;
    ui.alert.textContent = "";
    say("Sending: " + pending.words + "…");
    update();
    attempt(0);
  }
  function attempt(n) {
    api("POST", "/moves", pending.body, pending.key).then(function (r) {
      if (r.status === 201) { return r.json().then(played); }
      if (r.status === 429 || r.status >= 500) {
        var wait = parseInt(r.headers.get("Retry-After") || "0", 10) * 1000;
        return again(n, wait);
      }
      return json(r).then(function (p) { refused(r.status, p); });
    }, function () { again(n, 0); });
  }
  function again(n, wait) {
    if (n >= WAITS.length) {
      sending = false;
      warn("Your move could not be sent: the referee does not answer. Press Play to try again; " +
           "it will not be played twice.");
      say("");
      update();
      return;
    }
    say("No answer yet; sending your move again (it will be played once)…");
    setTimeout(function () { attempt(n + 1); }, Math.max(wait, WAITS[n]));
  }
  function played(answer) {
    sending = false;
    say("Played: " + pending.words + ".");
    news = "Played: " + pending.words + ".";
    pending = null;
    playedAt = answer.version;
    prefix = []; chosen = null;
    focusAfter = panel.contains(document.activeElement) || document.activeElement === document.body;
    catchUp();
  }
  function refused(status, p) {
    sending = false;
    pending = null;
    var why;
    if (p.code === "version-conflict") {
      why = "The game moved on before your move arrived, so it was not played. The page now shows the " +
            "new position: choose again.";
    } else if (p.code === "game-over") {
      why = "Not played: the game is over.";
    } else if (p.code === "settling") {
      why = "Not played: the referee is still finishing its step. Try again in a moment.";
    } else if (status === 401) {
      why = "Not played: this link's token is not accepted any more (the seat may have gone to someone else).";
    } else {
      why = "Not played: " + (p.detail || p.title || "refused (" + status + ")") + (p.rule ? " (rule: " + p.rule + ")" : "");
    }
    prefix = []; chosen = null;
    warn(why);
    say("");
    focusAfter = true;
    catchUp();
  }
  function catchUp() {
    legal = null;  // whatever comes next is news
    update();
    root.dispatchEvent(new CustomEvent("referee:latest"));  // its drawing brings the legal moves
  }

  // ---- following watch.js's drawings -----------------------------------------
  var seenVersion = null;
  root.addEventListener("referee:drawn", function (e) {
    var d = e.detail;
    past = d.at !== null;
    players = names(d.summary.players);
    if (typeof d.view.seat !== "number") {  // the organiser's or a spectator's token: nothing to play
      panel.hidden = true;
      return;
    }
    if (d.summary.version !== seenVersion || !legal) {
      seenVersion = d.summary.version;
      load(past ? null : d.view);
    } else {
      decorate();  // a new picture: its handles again
    }
  });
  window.addEventListener("hashchange", function () { location.reload(); });  // another seat's token
})();
