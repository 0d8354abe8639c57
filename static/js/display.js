// The table display's page (templates/rolls/display.html). Its socket is live.js's, with two
// differences from a member's page:
// - When the GM replaces the display link, the server closes the socket with REPLACED: the page
//   says so and stays closed (a reconnect would only be refused again).
// - Only the last few cards are kept: the screen shows five and runs all evening.
(function () {
  "use strict";
  var REPLACED = 4410;
  var KEPT = 12;

  TabletopLive.onFinal(REPLACED, "Link replaced", function () {
    document.getElementById("display-replaced").hidden = false;
    // Nothing the old link showed stays on the screen.
    var feed = document.getElementById("feed");
    if (feed) feed.replaceChildren();
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    var feed = document.getElementById("feed");
    while (feed && feed.children.length > KEPT) feed.lastElementChild.remove();
  });
})();
