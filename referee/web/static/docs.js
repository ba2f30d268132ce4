// Starts Swagger UI on /docs (a static file: the pages allow no inline script).
(function () {
  "use strict";
  var box = document.getElementById("swagger-ui-container");
  // validatorUrl null: no badge fetched from another site
  window.ui = SwaggerUIBundle({ url: box.dataset.spec, dom_id: "#swagger-ui-container", validatorUrl: null });
})();
