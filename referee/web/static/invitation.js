// An invitation's page (the link of an invitation's message): accepting carries the
// player's entropy for the deal (docs/log-format.md, "The seed"): what they typed,
// else 32 random bytes drawn here by the browser (crypto.getRandomValues), never the
// referee's. Without this script the form still answers, with no entropy.
(function () {
  "use strict";
  var form = document.querySelector(".invitation-form"), field = form && form.querySelector("input.entropy");
  if (!field) { return; }
  form.addEventListener("submit", function (e) {
    var accepting = !e.submitter || e.submitter.value !== "decline";
    if (!accepting || field.value) { return; }
    var bytes = new Uint8Array(32);
    window.crypto.getRandomValues(bytes);
    field.value = Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  });
}());
