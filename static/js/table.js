// The little that htmx cannot do by itself on a live table page.
// - On every (re)connect, tell the server the last entry this page has, so it sends exactly
//   what was missed, in order.
// - Reconnect whatever closed the socket (a phone waking up, a server restart), except when
//   the server refused us for good.
// - Show the connection state, and reset the roll form after a roll.
(function () {
  "use strict";
  var NOT_A_MEMBER = 4403;

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

  // The page has one socket (the #live element's). htmx.createWebSocket is the extension's
  // documented factory: wrapping it tells us which socket is the current one, which the
  // events alone cannot (a reconnect closes the old socket after the new one exists).
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
  // The wrapper of the current socket, from the last event that handed it out; its
  // reconnect() opens a new socket in place (it closes the old one if it is still open).
  var wrapper = null;
  var refused = false;

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
    if (code === NOT_A_MEMBER) {
      refused = true;
      setStatus("offline", "You are no longer at this table.");
      return;
    }
    // Only the loss of the current socket counts: htmx closes the socket it replaces when
    // it reconnects, and reconnecting again for that would close the new one, and so on.
    if (event.detail.event.target !== current) return;
    setStatus("offline", "Reconnecting…");
    // htmx reconnects by itself on 1006/1011/1012/1013; any other close (1001 when a server
    // goes away, for one) gets the same treatment here.
    if ([1006, 1011, 1012, 1013].indexOf(code) < 0) {
      var lost = wrapper;
      setTimeout(function () {
        // Someone (htmx's own retry, the page waking up) reconnected in the meantime.
        if (refused || !dead()) return;
        lost.reconnect();
      }, 1000 + Math.random() * 1000);
    }
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    if (document.getElementById("reload-needed")) window.location.reload();
  });

  // A phone that slept may hold a dead socket that has not noticed yet.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") return;
    if (wrapper && !refused && dead()) wrapper.reconnect();
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (form && form.id === "roll-form" && event.detail.successful) {
      var intent = form.querySelector("input[name=intent]");
      if (intent) intent.value = "";
      var result = document.getElementById("result");
      if (result) result.scrollIntoView({ behavior: "smooth", block: "start" });
    }
  });
})();
