// The table display's page (templates/rolls/display.html). Its socket is live.js's, with two
// differences from a member's page:
// - When the GM replaces the display link, the server closes the socket with REPLACED: the page
//   says so and stays closed (a reconnect would only be refused again).
// - Only the last few cards and decision lines are kept: the screen shows five cards and two
//   lines, and runs all evening; a run of decisions never pushes the cards out.
(function () {
  "use strict";
  var REPLACED = 4410;
  var KEPT = {card: 12, event: 4};

  TabletopLive.onFinal(REPLACED, TabletopLive.word("linkReplaced", "Link replaced"), function () {
    document.getElementById("display-replaced").hidden = false;
    // Nothing the old link showed stays on the screen.
    var feed = document.getElementById("feed");
    if (feed) feed.replaceChildren();
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    var feed = document.getElementById("feed");
    if (!feed) return;
    Object.keys(KEPT).forEach(function (kind) {
      var items = feed.querySelectorAll(":scope > ." + kind);
      for (var i = KEPT[kind]; i < items.length; i++) items[i].remove();
    });
  });
})();
