// A seat's votes and disputes on the game page: answer the vote under way, propose
// one, or dispute an event or the game (docs/disputes.md). The token comes from the
// address's fragment (#token=...) and goes only in an Authorization header, as
// play.js sends it. The section shows for a seat's token only; after each answer
// the page reloads its view, so the disputes above the log and the log follow.
(function () {
  "use strict";
  var root = document.getElementById("game");
  var box = document.getElementById("seat-disputes");
  var m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (!root || !box || !window.fetch || !m) { return; }
  var token = decodeURIComponent(m[1]);
  var base = "/v1/games/" + encodeURIComponent(root.dataset.id);
  var $ = function (id) { return document.getElementById(id); };
  var vote = null, seat = null;

  function call(method, path, body) {
    var init = { method: method, headers: { "Authorization": "Bearer " + token } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(base + path, init).then(function (r) {
      return r.json().then(function (got) { return { ok: r.ok, body: got }; });
    });
  }

  function said(got, done) {
    $("sd-alert").textContent = got.ok ? "" : (got.body.detail || "The referee refused it.");
    if (got.ok) { $("sd-status").textContent = done; setTimeout(function () { location.reload(); }, 600); }
  }

  function load() {
    call("GET", "/view").then(function (got) {
      if (!got.ok || got.body.viewer !== "seat") { return; }
      seat = got.body.seat;
      vote = got.body.vote;
      box.hidden = false;
      var open = vote && vote.yes.indexOf(seat) < 0 && got.body.status === "active";
      $("sd-vote").hidden = !open;
      if (open) {
        $("sd-vote-words").textContent = "Vote " + vote.id + ": a proposal of " + vote.proposal +
          ". Your answer:";
      }
      $("sd-status").textContent = vote ? "Vote " + vote.id + " (" + vote.proposal + ") is under way." : "";
    });
  }

  function answer(yes) {
    if (!vote) { return; }
    call("POST", "/votes/" + vote.id, { yes: yes }).then(function (got) {
      said(got, yes ? "You said yes." : "You said no: the vote has failed.");
    });
  }

  $("sd-yes").addEventListener("click", function () { answer(true); });
  $("sd-no").addEventListener("click", function () { answer(false); });
  $("sd-propose").addEventListener("submit", function (e) {
    e.preventDefault();
    call("POST", "/votes", { proposal: $("sd-proposal").value }).then(function (got) {
      said(got, "Proposed: every other seat is asked.");
    });
  });
  $("sd-dispute").addEventListener("submit", function (e) {
    e.preventDefault();
    var body = { text: $("sd-text").value };
    if ($("sd-seq").value) { body.seq = parseInt($("sd-seq").value, 10); }
    call("POST", "/disputes", body).then(function (got) {
      said(got, "Your dispute is open: the organiser is told, and the clocks stand still.");
    });
  });
  load();
}());
