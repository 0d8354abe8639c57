// The stream overlay's page (templates/rolls/overlay.html). Its socket is live.js's, as on the
// table display:
// - When the GM replaces the overlay link, the server closes the socket with REPLACED: the page
//   clears its cards, says so in a small box and stays closed (a reconnect would only be
//   refused again).
// - Only the last few cards are kept: the overlay shows three, and runs all evening.
(function () {
  "use strict";
  var REPLACED = 4410;
  var KEPT = 6;

  TabletopLive.onFinal(REPLACED, TabletopLive.word("linkReplaced", "Link replaced"), function () {
    document.getElementById("overlay-replaced").hidden = false;
    var feed = document.getElementById("feed");
    if (feed) feed.replaceChildren();
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    var feed = document.getElementById("feed");
    if (!feed) return;
    var items = feed.querySelectorAll(":scope > li");
    for (var i = KEPT; i < items.length; i++) items[i].remove();
  });
})();
