// The player's vacations on their own page (/me): the days left this year, the
// bookings not yet over, a form to book one (POST /v1/players/me/vacation) and a
// button to cancel (DELETE). The token comes from the address's fragment, as
// me.js reads it, and goes only in an Authorization header.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var form = $("vacation-form"), alertBox = $("me-alert");
  if (!form) { return; }
  var m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  var token = m ? decodeURIComponent(m[1]) : null;
  if (!token) { return; }

  function call(method, body) {
    return fetch("/v1/players/me/vacation", {
      method: method, body: body ? JSON.stringify(body) : undefined,
      headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" }
    });
  }

  function show(v) {
    var n = v.vacation_days_left;
    $("vacation-left").textContent = n + (n === 1 ? " vacation day" : " vacation days") + " left this year.";
    var list = $("vacations");
    list.textContent = "";
    (v.vacations || []).forEach(function (b) {
      var li = document.createElement("li");
      // each date whole on a phone's narrow line (a date is never broken at its hyphens)
      var words = b.from === b.to ? ["Away on ", b.from] : ["Away from ", b.from, " to ", b.to];
      words.forEach(function (w, i) {
        if (i % 2) {
          var d = document.createElement("span");
          d.className = "date";
          d.textContent = w;
          li.appendChild(d);
        } else {
          li.appendChild(document.createTextNode(w));
        }
      });
      list.appendChild(li);
    });
    if (!list.children.length) {
      var none = document.createElement("li");
      none.textContent = "No vacation booked.";
      list.appendChild(none);
    }
    $("vacation-cancel").hidden = !(v.vacations || []).length;
  }

  function refused(res, what) {
    return res.json().then(function (p) { alertBox.textContent = what + ": " + (p.detail || res.status); },
                          function () { alertBox.textContent = what + " (" + res.status + ")."; });
  }

  function busy(on) {
    $("vacation-book").disabled = on;
    $("vacation-cancel").disabled = on;
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    busy(true);
    call("POST", { from: $("vacation-from").value, to: $("vacation-to").value }).then(function (res) {
      busy(false);
      if (!res.ok) { return refused(res, "Not booked"); }
      alertBox.textContent = "";
      return res.json().then(show);
    }, function () { busy(false); alertBox.textContent = "No answer from the referee. Try again."; });
  });

  $("vacation-cancel").addEventListener("click", function () {
    if (!window.confirm("Cancel your vacations? The days not yet begun come back.")) { return; }
    busy(true);
    call("DELETE").then(function (res) {
      busy(false);
      if (!res.ok) { return refused(res, "Not cancelled"); }
      alertBox.textContent = "";
      return res.json().then(show);
    }, function () { busy(false); alertBox.textContent = "No answer from the referee. Try again."; });
  });

  fetch("/v1/players/me", { headers: { "Authorization": "Bearer " + token } })
    .then(function (r) { return r.ok ? r.json() : null; })
    .then(function (me) { if (me) { show(me); } }, function () { /* me.js says it */ });
}());
