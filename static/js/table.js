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

  document.addEventListener("htmx:wsOpen", function (event) {
    event.detail.socketWrapper.send(JSON.stringify({ since: lastSeq() }));
    setStatus("live", "Live");
  });

  document.addEventListener("htmx:wsClose", function (event) {
    var code = event.detail.event.code;
    if (code === NOT_A_MEMBER) {
      setStatus("offline", "You are no longer at this table.");
      return;
    }
    setStatus("offline", "Reconnecting…");
    // htmx reconnects by itself on 1006/1011/1012/1013; any other close (1001 when a server
    // goes away, for one) gets the same treatment here.
    if ([1006, 1011, 1012, 1013].indexOf(code) < 0) {
      var live = document.getElementById("live");
      var wrapper = live && live["htmx-internal-data"] && live["htmx-internal-data"].webSocket;
      // Only the loss of the current socket counts: htmx closes the socket it replaces when
      // it reconnects, and reconnecting again for that would close the new one, and so on.
      if (!wrapper || event.detail.event.target !== wrapper.socket) return;
      setTimeout(function () {
        // Someone (htmx's own retry, the page waking up) reconnected in the meantime.
        if (wrapper.socket && wrapper.socket.readyState <= 1) return;
        wrapper.init();
      }, 1000 + Math.random() * 1000);
    }
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    if (document.getElementById("reload-needed")) window.location.reload();
  });

  // A phone that slept may hold a dead socket that has not noticed yet.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") return;
    var live = document.getElementById("live");
    var wrapper = live && live["htmx-internal-data"] && live["htmx-internal-data"].webSocket;
    if (wrapper && wrapper.socket && wrapper.socket.readyState > 1) wrapper.init();
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
