// The roll screen keeps the phone's screen on while a play session runs (navigator.wakeLock,
// where the browser has it: in a secure context, HTTPS or localhost).
// - The session's state is #session-status's class ("open" or "closed"): drawn with the page
//   and swapped over the page's socket when the GM starts or ends a session
//   (templates/rolls/_session_status.html), so the lock follows the table live.
// - The browser drops the lock when the page is hidden; it is asked for again when the page
//   is visible once more (visibilitychange), and let go when the page goes away (pagehide).
// - The state is on <html data-wake-lock="on|off|unsupported|refused"> for tests and
//   scripts, and #wake-lock ("Screen stays on") shows it to the player.
(function () {
  "use strict";
  var root = document.documentElement;
  var sentinel = null;
  var asking = false;
  var leaving = false; // from pagehide to pageshow

  function show(state) {
    root.dataset.wakeLock = state;
    var note = document.getElementById("wake-lock");
    if (note) note.hidden = state !== "on";
  }

  function sessionRuns() {
    return document.querySelector("#session-status.open") !== null;
  }

  function wanted() {
    return sessionRuns() && document.visibilityState === "visible" && !leaving;
  }

  function sync() {
    if (!("wakeLock" in navigator)) {
      show("unsupported");
      return;
    }
    if (wanted()) {
      if (sentinel || asking) return;
      asking = true;
      navigator.wakeLock
        .request("screen")
        .then(function (lock) {
          asking = false;
          sentinel = lock;
          lock.addEventListener("release", function () {
            if (sentinel === lock) sentinel = null;
            show("off");
          });
          show("on");
          // The session may have ended while the browser was deciding.
          if (!wanted()) release();
        })
        .catch(function () {
          // Refused (the battery saver, a hidden page, a browser's policy): the page works
          // as before, and the next visibilitychange or session asks again.
          asking = false;
          show("refused");
        });
    } else {
      release();
    }
  }

  function release() {
    if (sentinel) {
      var lock = sentinel;
      sentinel = null;
      lock.release().catch(function () {});
    }
    if (root.dataset.wakeLock === "on") show("off");
  }

  function start() {
    var status = document.getElementById("session-status");
    if (!status) return;
    show("off");
    // The socket replaces #session-status in place (an out-of-band swap): watch its parent.
    new MutationObserver(sync).observe(status.parentNode, { childList: true, subtree: true, attributes: true, attributeFilter: ["class"] });
    document.addEventListener("visibilitychange", sync);
    window.addEventListener("pagehide", function () {
      leaving = true;
      release();
    });
    window.addEventListener("pageshow", function () {
      leaving = false;
      sync();
    });
    sync();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
