// The table display's socket (templates/rolls/display.html), as table.js does it for a member's
// page, with two differences:
// - When the GM replaces the display link, the server closes the socket with REPLACED: the page
//   says so and stays closed (a reconnect would only be refused again).
// - Only the last few cards are kept: the screen shows five and runs all evening.
(function () {
  "use strict";
  var REPLACED = 4410;
  var KEPT = 12;

  function lastSeq() {
    var el = document.getElementById("last-seq");
    return el ? parseInt(el.dataset.seq || "0", 10) || 0 : 0;
  }

  function setStatus(state, text) {
    var el = document.getElementById("live-status");
    if (!el) return;
    el.dataset.state = state;
    el.textContent = text;
  }

  // The current socket, as htmx's documented factory hands it out (see table.js).
  var current = null;
  var makeSocket =
    htmx.createWebSocket ||
    function (url) {
      var made = new WebSocket(url, []);
      made.binaryType = htmx.config.wsBinaryType;
      return made;
    };
  htmx.createWebSocket = function (url) {
    current = makeSocket(url);
    return current;
  };
  var wrapper = null;
  var replaced = false;

  function dead() {
    return !current || current.readyState > 1; // CLOSING or CLOSED
  }

  document.addEventListener("htmx:wsOpen", function (event) {
    wrapper = event.detail.socketWrapper;
    wrapper.send(JSON.stringify({ since: lastSeq() }));
    setStatus("live", "Live");
  });

  document.addEventListener("htmx:wsClose", function (event) {
    wrapper = event.detail.socketWrapper;
    var code = event.detail.event.code;
    if (code === REPLACED) {
      replaced = true;
      setStatus("offline", "Link replaced");
      document.getElementById("display-replaced").hidden = false;
      // Nothing the old link showed stays on the screen.
      var feed = document.getElementById("feed");
      if (feed) feed.replaceChildren();
      return;
    }
    if (event.detail.event.target !== current) return;
    setStatus("offline", "Reconnecting…");
    // htmx reconnects by itself on these; any other close is retried here.
    if ([1006, 1011, 1012, 1013].indexOf(code) < 0) {
      var lost = wrapper;
      setTimeout(function () {
        if (replaced || !dead()) return;
        lost.reconnect();
      }, 1000 + Math.random() * 1000);
    }
  });

  // The server asks for a reload (a catch-up too long to replay, a new join link for the QR
  // code): the page holds no element for its marker to land in, so it is read here, before
  // htmx looks for one.
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (String(event.detail.message).indexOf('id="reload-needed"') < 0) return;
    event.preventDefault();
    window.location.reload();
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    var feed = document.getElementById("feed");
    while (feed && feed.children.length > KEPT) feed.lastElementChild.remove();
  });

  // A screen that slept may hold a dead socket that has not noticed yet.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") return;
    if (wrapper && !replaced && dead()) wrapper.reconnect();
  });
})();
