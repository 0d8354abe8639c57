// The phone as an app: registers the service worker (/sw.js, tabletop/phone_app.py), which
// keeps the page shell for a phone that loses the network, and nothing live.
// Only over HTTPS: a worker there is what a deployment means to serve. On http:// (a laptop
// on the club's network, `manage.py serve`) none is registered, so nothing lingers in a
// browser that served the table once. For a test on http://localhost, set this browser's
// switch first: localStorage.setItem("tabletop-worker-on-http", "1") (README, "On the phone").
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  var onHttp = false;
  try {
    onHttp = window.localStorage.getItem("tabletop-worker-on-http") === "1";
  } catch (error) {
    // Storage refused (a private window's settings): no switch, then.
  }
  if (location.protocol !== "https:" && !onHttp) return;
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {
      // No worker, no harm: every page works without one.
    });
  });
})();
