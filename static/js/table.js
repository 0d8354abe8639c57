// The little that htmx cannot do by itself on a live table page.
// - On every (re)connect, tell the server the last entry this page has, so it sends exactly
//   what was missed, in order.
// - Reconnect whatever closed the socket (a phone waking up, a server restart), except when
//   the server refused us for good.
// - Show the connection state, and reset the roll form after a roll.
// - Keep the result where the player looks, clear refusals once something succeeds, let a
//   roll land (and, if the player wants, be heard).
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

  // After a roll: the form starts afresh and the result shows where the player looks. After
  // a follow-up the card stays where it was (the page does not anchor its scroll to anything
  // on the roll screen, app.css), scrolled to only when its top has gone above the screen.
  // Whatever succeeds clears the refusals shown before it.
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status >= 400 || event.detail.requestConfig.verb === "get") return;
    clearRefusals();
    if (elt && elt.id === "roll-form") {
      var intent = elt.querySelector("input[name=intent]");
      if (intent) intent.value = "";
    }
  });

  function clearRefusals() {
    document.querySelectorAll("[data-refusal]").forEach(function (slot) {
      slot.textContent = "";
    });
    document.querySelectorAll("#notice .flash.error").forEach(function (flash) {
      flash.remove();
    });
  }

  // A new result card lands: its newest dice tumble in (app.css; none for reduced motion) and,
  // when the player turned it on, the dice clatter.
  // The roller's follow-up arrives twice (the answer to their tap, and the socket's copy for
  // their other pages): it lands once.
  var lastLanded = null;

  function landed(card) {
    if (!card || !card.classList || !card.classList.contains("card")) return;
    var key = card.id + "@" + card.dataset.seq;
    if (key === lastLanded) return;
    lastLanded = key;
    card.classList.add("landing");
    setTimeout(function () {
      card.classList.remove("landing");
    }, 1200);
    var steps = card.querySelectorAll(".step");
    var last = steps.length ? steps[steps.length - 1] : card;
    clatter(last.querySelectorAll(".die").length);
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (!target) return;
    var card = null;
    if (target.id === "result") {
      // Swapped outerHTML: the target the event names has left the page, its successor has not.
      var result = document.getElementById("result");
      card = result && result.querySelector(".card");
      if (card) card.scrollIntoView({ behavior: "smooth", block: "start" });
    } else if (target.classList && target.classList.contains("card") && target.isConnected) {
      card = target;
    } else if (target.id && target.id.indexOf("-roll-") > 0) {
      card = document.getElementById(target.id);
    }
    if (!card || !card.closest("#result, .against-panel")) return;
    if (target.id !== "result" && card.getBoundingClientRect().top < 0) {
      card.scrollIntoView({ behavior: "smooth", block: "start" });
    }
    landed(card);
  });

  // The socket's copy of a result card this page already shows (the answer to the player's own
  // tap, same entry) changes nothing: leave it, so its dice are not cut off mid-landing.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail.target;
    var fragment = event.detail.fragment;
    var incoming = fragment && fragment.firstElementChild;
    if (!target || !incoming || !target.closest || !target.closest("#result")) return;
    if (incoming.id === target.id && incoming.dataset.seq && incoming.dataset.seq === target.dataset.seq) {
      event.detail.shouldSwap = false;
    }
  });

  // A follow-up that arrives over the socket replaces the result card too.
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail.target;
    // Swapped whole: the element the event names has left the page; its successor has its id.
    var card = target && target.id ? document.getElementById(target.id) : null;
    if (card && card.closest("#result")) landed(card);
  });

  // -- the sound of a roll: off unless the player turns it on, remembered on this phone ------
  var SOUND_KEY = "tabletop-sound";
  var audio = null;

  function soundOn() {
    try {
      return window.localStorage.getItem(SOUND_KEY) === "on";
    } catch (e) {
      return false; // storage refused (private mode): no sound
    }
  }

  function showSound(button) {
    var on = soundOn();
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? "Sound on" : "Sound off";
  }

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("sound-toggle");
    if (!button) return;
    button.hidden = false; // it needs this script: without it, there is nothing to turn on
    showSound(button);
    button.addEventListener("click", function () {
      try {
        window.localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
      } catch (e) {
        return;
      }
      showSound(button);
      if (soundOn()) clatter(2); // the tap that turns it on also lets the page play sound
    });
  });

  // Dice on a table, made on the spot: a short burst of filtered noise per die, a few
  // milliseconds apart. No audio file.
  function clatter(count) {
    if (!soundOn() || !count) return;
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    if (!audio) audio = new Context();
    if (audio.state === "suspended") audio.resume();
    var now = audio.currentTime;
    var length = Math.floor(audio.sampleRate * 0.06);
    for (var i = 0; i < Math.min(count, 8); i++) {
      var buffer = audio.createBuffer(1, length, audio.sampleRate);
      var data = buffer.getChannelData(0);
      for (var j = 0; j < length; j++) {
        data[j] = (Math.random() * 2 - 1) * Math.pow(1 - j / length, 3);
      }
      var source = audio.createBufferSource();
      source.buffer = buffer;
      var filter = audio.createBiquadFilter();
      filter.type = "bandpass";
      filter.frequency.value = 1800 + Math.random() * 1800;
      filter.Q.value = 3;
      var gain = audio.createGain();
      gain.gain.value = 0.5;
      source.connect(filter);
      filter.connect(gain);
      gain.connect(audio.destination);
      source.start(now + 0.12 + i * (0.035 + Math.random() * 0.03));
    }
  }
})();
