// The live socket of a page that has one: a member's table page (templates/rolls/_live.html)
// or the table display (templates/rolls/display.html). One copy of the plumbing both need:
// - On every (re)connect, tell the server the last entry this page has, so it sends exactly
//   what was missed, in order.
// - Reconnect whatever closed the socket (a phone waking up, a server restart), except a close
//   the page's own script declared final (``TabletopLive.onFinal``: a member the GM removed, a
//   display whose link was replaced).
// - Reload when the server asks (a catch-up too long to replay, a new join link for the QR
//   code): its marker has no element to land in, so it is read before htmx looks for one.
// - Reconnect at once when the browser says the network is back (its "online" event).
// - Show the connection state in #live-status (fixed in view while not live, app.css), and say
//   a lost connection and its return in the page's announcer (templates/_announcer.html): the
//   status line itself stays quiet, so it never cuts off what the table's entries say.
// - Lend the other scripts the page's words (#script-words, drawn in the page's language).
(function () {
  "use strict";

  // The words the scripts show, drawn by templates/_announcer.html in the page's language;
  // the English ones when a page has none.
  function word(name, fallback) {
    var el = document.getElementById("script-words");
    return (el && el.dataset[name]) || fallback;
  }

  // One sentence for the page's announcer, in place of what it said before.
  function announce(text) {
    var el = document.getElementById("announcer");
    if (el && text) el.textContent = text;
  }

  var finals = {}; // close code -> {text, then}
  var closedForGood = false;

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

  // A page has one socket. htmx.createWebSocket is the ws extension's documented factory:
  // wrapping it tells us which socket is the current one, which the events alone cannot (a
  // reconnect closes the old socket after the new one exists).
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

  function dead() {
    return !current || current.readyState > 1; // CLOSING or CLOSED
  }

  var live = false;
  var everOpen = false;
  var lost = false; // a socket was open, and the page has been without one since

  function loseConnection() {
    if (lost || closedForGood || !everOpen) return;
    lost = true;
    announce(word("connectionLost", "The connection is lost: reconnecting."));
  }

  document.addEventListener("htmx:wsOpen", function (event) {
    wrapper = event.detail.socketWrapper;
    wrapper.send(JSON.stringify({ since: lastSeq() }));
    live = true;
    everOpen = true;
    setStatus("live", word("live", "Live"));
    if (lost) announce(word("reconnected", "Reconnected."));
    lost = false;
  });

  // The network back (the browser's "online" event): reconnect at once, not when htmx's
  // growing backoff next tries, then again after 250 ms, 500 ms, 1 s, 2 s... (2 s at most)
  // until the socket is open. A socket that looks open may have died with the network: it is
  // replaced too, and the new one asks for what was missed.
  var retry = null;

  function reconnectNow(attempt) {
    clearTimeout(retry);
    if (closedForGood || !wrapper) return;
    if (attempt > 0 && live && !dead()) return;
    live = false;
    setStatus("offline", word("reconnecting", "Reconnecting…"));
    loseConnection();
    wrapper.reconnect();
    retry = setTimeout(function () {
      reconnectNow(attempt + 1);
    }, Math.min(250 * Math.pow(2, attempt), 2000));
  }

  window.addEventListener("online", function () {
    reconnectNow(0);
  });
  window.addEventListener("offline", function () {
    if (closedForGood) return;
    live = false;
    setStatus("offline", word("waitingNetwork", "Offline: waiting for the network…"));
    loseConnection();
  });

  document.addEventListener("htmx:wsClose", function (event) {
    wrapper = event.detail.socketWrapper;
    var code = event.detail.event.code;
    var final = finals[code];
    if (final) {
      closedForGood = true;
      setStatus("offline", final.text);
      announce(final.text);
      if (final.then) final.then();
      return;
    }
    // Only the loss of the current socket counts: htmx closes the socket it replaces when
    // it reconnects, and reconnecting again for that would close the new one, and so on.
    if (event.detail.event.target !== current) return;
    live = false;
    setStatus(
      "offline",
      navigator.onLine === false
        ? word("waitingNetwork", "Offline: waiting for the network…")
        : word("reconnecting", "Reconnecting…"),
    );
    loseConnection();
    // htmx reconnects by itself on 1006/1011/1012/1013; any other close (1001 when a server
    // goes away, for one) gets the same treatment here.
    if ([1006, 1011, 1012, 1013].indexOf(code) < 0) {
      var lost = wrapper;
      setTimeout(function () {
        // Someone (htmx's own retry, the page waking up) reconnected in the meantime.
        if (closedForGood || !dead()) return;
        lost.reconnect();
      }, 1000 + Math.random() * 1000);
    }
  });

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (String(event.detail.message).indexOf('id="reload-needed"') < 0) return;
    event.preventDefault();
    window.location.reload();
  });

  // A card's update for a card this page does not hold (the result panel shows a newer roll
  // than the one the GM just voided or revealed; the feed keeps only its newest cards) has
  // nothing to update: the socket's message drops it before htmx looks for its target, which
  // would report htmx:oobErrorNoTarget (unless an earlier part of the same message brings the
  // card, as a catch-up does: htmx swaps the parts in order). Only cards, swapped by their own
  // id: every other element the socket sends names something each page of its kind holds.
  var CARD_ID = /^(result|feed|gm|against)-roll-\d+$/;
  if (window.htmx) {
    htmx.defineExtension("cards-shown", {
      transformResponse: function (text) {
        if (text.indexOf("-roll-") < 0) return text;
        var template = document.createElement("template");
        template.innerHTML = text;
        var brought = {}; // the card ids the parts before this one bring
        var absent = Array.prototype.filter.call(template.content.children, function (element) {
          var oob = element.getAttribute("hx-swap-oob");
          var byId = !oob || oob.indexOf(":") < 0; // "true", "outerHTML", "delete": its own id
          var card = byId && CARD_ID.test(element.id);
          var drop = card && !brought[element.id] && !document.getElementById(element.id);
          if (!drop && oob !== "delete") {
            if (element.id) brought[element.id] = true;
            element.querySelectorAll("[id]").forEach(function (inner) {
              brought[inner.id] = true;
            });
          }
          return drop;
        });
        if (!absent.length) return text;
        absent.forEach(function (element) {
          element.remove();
        });
        return template.innerHTML;
      },
    });
  }

  // A screen that slept may hold a dead socket that has not noticed yet.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") return;
    if (wrapper && !closedForGood && dead()) wrapper.reconnect();
  });

  window.TabletopLive = {
    // A close with ``code`` is final: the page says ``text`` and stays closed, after ``then``.
    onFinal: function (code, text, then) {
      finals[code] = { text: text, then: then };
    },
    word: word,
    announce: announce,
  };
})();
