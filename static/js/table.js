// The little that htmx cannot do by itself on a member's table page (the socket itself is
// live.js's):
// - Reset the roll form after a roll.
// - Keep the result where the player looks, clear refusals once something succeeds, let a
//   roll land (and, if the player wants, be heard).
// - Keep the result panel's node and the keyboard's focus where they are (issue 45).
// The words it shows are the page's (live.js's ``word``: templates/_announcer.html draws them).
(function () {
  "use strict";
  function word(name, fallback) {
    return window.TabletopLive ? TabletopLive.word(name, fallback) : fallback;
  }

  // The socket's plumbing is live.js's; a member the GM removed is closed for good.
  var NOT_A_MEMBER = 4403;
  if (window.TabletopLive) {
    TabletopLive.onFinal(NOT_A_MEMBER, word("notAMember", "You are no longer at this table."));
  }

  // Smooth scrolling only for those who have not asked their system for less motion.
  function scrolling() {
    var still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    return still ? "auto" : "smooth";
  }

  // The phone's share of the dice (docs/verify.md): 16 fresh random bytes, as hex, in every
  // roll or follow-up it sends. htmx has read the form when it asks for the request's
  // parameters, so the value goes in there; a form sent without htmx gets it on submit.
  // The value is also the request's one-time key (rolls/log/resent.py): it stays with what was
  // tapped until an answer comes back, so a tap repeated after the answer was lost on the way
  // sends the same key and the server answers with the first result instead of rolling again.
  var CLIENT_FIELD = "client_random";
  var PENDING = "pendingKey"; // data-pending-key on the form or button that sent the request

  function clientValue() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (b) {
        return (b < 16 ? "0" : "") + b.toString(16);
      })
      .join("");
  }

  document.addEventListener("htmx:configRequest", function (event) {
    var parameters = event.detail.parameters;
    var elt = event.detail.elt;
    if (!parameters || parameters[CLIENT_FIELD] === undefined || !elt) return;
    if (!elt.dataset[PENDING]) elt.dataset[PENDING] = clientValue();
    parameters[CLIENT_FIELD] = elt.dataset[PENDING];
  });
  // Any answer (a result, a refusal) ends the key; nothing back (status 0) keeps it.
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && event.detail.xhr && event.detail.xhr.status) delete elt.dataset[PENDING];
  });
  document.addEventListener(
    "submit",
    function (event) {
      var form = event.target;
      if (!form || !form.querySelectorAll) return;
      // A plain POST keeps its key too: the page it answers with draws fresh, empty fields.
      form.querySelectorAll("input[name=" + CLIENT_FIELD + "]").forEach(function (input) {
        if (!input.value) input.value = clientValue();
      });
    },
    true,
  );

  // After a roll: the form starts afresh and the result shows where the player looks. After
  // a follow-up the card stays where it was (the page does not anchor its scroll to anything
  // on the roll screen, app.css), scrolled to only when its top has gone above the screen.
  // Whatever succeeds clears the refusals shown before it.
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    var xhr = event.detail.xhr;
    // status 0: nothing came back (offline, htmx:sendError): nothing succeeded either.
    if (!xhr || !xhr.status || xhr.status >= 400 || event.detail.requestConfig.verb === "get") return;
    clearRefusals();
    if (elt && elt.id === "roll-form") resetPerRoll(elt);
  });

  // After a roll, the choices that were that roll's own (what it needs, an advantage, the side
  // it took, help, rolling blind, the intent) start afresh; the character's standing ones (its
  // trait, stat or skill: ``RollFormBase.standing``, listed in data-standing) stay for the next
  // roll. The keypad clears its own entry (keypad.js).
  function resetPerRoll(form) {
    var standing = (form.dataset.standing || "").split(/\s+/);
    var changed = false;
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || standing.indexOf(el.name) >= 0 || el.closest("[data-keypad]")) return;
      if (el.type === "hidden" || el.type === "submit" || el.type === "button") return;
      if (el.type === "checkbox" || el.type === "radio") {
        if (el.checked !== el.defaultChecked) {
          el.checked = el.defaultChecked;
          changed = true;
        }
      } else if (el.tagName === "SELECT") {
        var index = 0;
        Array.prototype.forEach.call(el.options, function (option, i) {
          if (option.defaultSelected) index = i;
        });
        if (el.selectedIndex !== index) {
          el.selectedIndex = index;
          changed = true;
        }
      } else if (el.value !== el.defaultValue) {
        el.value = el.defaultValue;
        changed = true;
      }
    });
    // The odds follow the form's "change" (hx-trigger): they show the choices as they are now.
    if (changed) form.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // An action tapped without a network is not lost in silence, and not sent twice: it says
  // so where the refusal would go, and the player taps it again once back. Nothing is sent
  // while the browser knows it is offline; a request that fails on the way says the same. While
  // a request is on its way, the buttons of what sent it are disabled: a second tap waits.
  var OFFLINE = word("offline", "You are offline: this was not sent.");
  // Sent, but no answer came: it may have reached the table. Its key is kept (above), so
  // tapping again shows what happened, and does not do it twice.
  var NO_ANSWER = word("noAnswer", "No answer came back. Tap again: it will not be done twice.");

  function sayOffline(elt, text) {
    var form = elt && elt.closest ? elt.closest("form") || elt : null;
    var slot = (form && form.querySelector && form.querySelector("[data-refusal]")) || document.getElementById("notice");
    if (!slot) return;
    slot.innerHTML = "";
    var message = document.createElement("p");
    message.className = "flash error offline-refusal";
    message.setAttribute("role", "alert");
    message.textContent = text || OFFLINE;
    slot.appendChild(message);
    var box = message.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) message.scrollIntoView({ block: "nearest" });
  }

  function sendingButtons(elt) {
    if (!elt) return [];
    if (elt.tagName === "FORM") return Array.prototype.slice.call(elt.querySelectorAll("button:not([type=button])"));
    return elt.tagName === "BUTTON" ? [elt] : [];
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (event.detail.requestConfig && event.detail.requestConfig.verb === "get") return;
    if (navigator.onLine === false) {
      event.preventDefault();
      sayOffline(elt);
      return;
    }
    sendingButtons(elt).forEach(function (button) {
      if (button.disabled) return;
      button.disabled = true;
      button.dataset.sending = "1";
    });
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    sendingButtons(event.detail.elt).forEach(function (button) {
      if (!button.dataset.sending) return;
      button.disabled = false;
      delete button.dataset.sending;
    });
  });

  document.addEventListener("htmx:sendError", function (event) {
    var config = event.detail.requestConfig;
    if (config && config.verb === "get") return; // the odds: they come again with the next change
    sayOffline(event.detail.elt, NO_ANSWER);
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
    // A refusal lands by the button that was tapped; when that is near the bottom of the screen
    // (under the phone's Roll bar), the page moves just enough to show it (app.css gives it room).
    if (target.hasAttribute && target.hasAttribute("data-refusal")) {
      var box = target.getBoundingClientRect();
      if (box.top < 0 || box.bottom > window.innerHeight) target.scrollIntoView({ block: "nearest" });
      return;
    }
    var card = null;
    if (target.id === "result") {
      // Swapped by its content (below): the panel is the one the page had.
      var result = document.getElementById("result");
      card = result && result.querySelector(".card");
      // The panel, not the card: a take-back button above the card shows too.
      if (card) result.scrollIntoView({ behavior: scrolling(), block: "start" });
    } else if (target.classList && target.classList.contains("card") && target.isConnected) {
      card = target;
    } else if (target.id && target.id.indexOf("-roll-") > 0) {
      card = document.getElementById(target.id);
    }
    if (!card || !card.closest("#result, .against-panel")) return;
    if (target.id !== "result" && card.getBoundingClientRect().top < 0) {
      card.scrollIntoView({ behavior: scrolling(), block: "start" });
    }
    landed(card);
  });

  // The result panel keeps its node (issue 45): a screen reader, or a script, holding it keeps
  // it. An answer that draws the whole panel (a roll's, a take-back's: rolls/character.html's
  // "result" partial) goes in as the panel's content; its out-of-band parts still go where they
  // go. The socket's copy does the same (rolls/_result_oob.html).
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "result") return;
    if (!/^\s*<section id="result"/.test(event.detail.serverResponse || "")) return;
    event.detail.swapOverride = "innerHTML";
    event.detail.selectOverride = "#result > *";
  });

  // The keyboard's focus stays where the player left it (issue 45). A swap that replaces what
  // held it (a card redrawn after its follow-up, by the answer or the socket) hands it to the
  // same control on the new card, else to the card itself; htmx does so only for an element
  // with an id of its own. A request's own button loses the focus as soon as it is disabled
  // for the trip (above), so the focus is noted as the request sets out.
  var focusKept = null;

  // ``target``: what the swap replaces; ``source``: what sent the request (the Roll button's
  // form, whose answer lands elsewhere), whose control gets the focus back once enabled again.
  function noteFocus(target, source) {
    var active = document.activeElement;
    if (!active || active === document.body) return;
    var holder = target && target.contains(active) ? target : source && source.contains(active) ? source : null;
    if (!holder) return;
    var form = active.closest ? active.closest("form") : null;
    var action = form && form.querySelector("input[name=action]");
    focusKept = { element: active, id: active.id, holder: holder.id, action: action ? action.value : null };
  }

  function restoreFocus() {
    var kept = focusKept;
    if (!kept) return;
    var active = document.activeElement;
    if (active && active !== document.body && active.isConnected) {
      focusKept = null; // the focus is somewhere: the player's, or htmx's own restoring
      return;
    }
    var next = null;
    if (kept.element.isConnected) {
      if (kept.element.disabled) return; // its request is still on its way
      next = kept.element; // refused, or answered elsewhere: the same control again
    }
    var holder = kept.holder ? document.getElementById(kept.holder) : null;
    if (!next && kept.id) next = document.getElementById(kept.id);
    if (!next && holder && kept.action) {
      var same = holder.querySelector('input[name=action][value="' + CSS.escape(kept.action) + '"]');
      var form = same && same.closest("form");
      next = form && form.querySelector("button:not([disabled])");
    }
    if (!next && holder) {
      next = holder;
      if (!next.hasAttribute("tabindex")) next.setAttribute("tabindex", "-1");
    }
    focusKept = null;
    if (next) next.focus({ preventScroll: true });
  }

  document.addEventListener("htmx:configRequest", function (event) {
    noteFocus(event.detail.target, event.detail.elt);
  });
  // After the buttons of the request are enabled again (above), and its answer is in.
  document.addEventListener("htmx:afterRequest", function () {
    setTimeout(restoreFocus, 0);
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    noteFocus(event.detail.target);
  });
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    noteFocus(event.detail.target);
  });
  document.addEventListener("htmx:afterSettle", restoreFocus);
  document.addEventListener("htmx:oobAfterSwap", function () {
    setTimeout(restoreFocus, 0);
  });

  // A card the socket redrew while this request was on its way has left the page: the answer
  // goes to its successor (same id), so the swap and its out-of-band parts (a resources line)
  // find their places in the page, not in the detached card.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id && !target.isConnected) {
      var successor = document.getElementById(target.id);
      if (successor) event.detail.target = successor;
    }
  });

  // The answer to the GM's own roll goes on top of their waiting panel; when the socket's copy
  // of the panel came first, with that card on top already, the answer changes nothing.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "gm-panel") return;
    var card = /^\s*<li id="(gm-roll-\d+)"/.exec(event.detail.serverResponse || "");
    if (card && document.getElementById(card[1])) event.detail.shouldSwap = false;
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

  // A folded panel the address names (the console's Invite panel after a new link:
  // "#invite-tools") opens, so what the GM just made is in sight without another tap.
  function openTargeted() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var named = id ? document.getElementById(id) : null;
    var panel = named && named.closest ? named.closest("details") : null;
    if (panel && !panel.open) panel.open = true;
  }
  document.addEventListener("DOMContentLoaded", openTargeted);
  window.addEventListener("hashchange", openTargeted);

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
    button.textContent = on ? word("soundOn", "Sound on") : word("soundOff", "Sound off");
  }

  // After the player's own follow-up on a contest's roll (a push on their side), the contest's
  // next actions for them ("Buy a success", "Give a spare success") are redrawn on the
  // contests panel above the result, out of sight: bring the first into view. Only for a
  // moment after their own tap, so another player's move never scrolls this page.
  var followedUp = 0;
  var FOLLOW_UP_WINDOW = 5000;

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.closest && elt.closest("#result .card")) followedUp = Date.now();
  });

  function showContestSteps() {
    if (!followedUp || Date.now() - followedUp > FOLLOW_UP_WINDOW) return;
    var step = document.querySelector("#contests-panel .contest-step");
    if (!step) return;
    var box = step.getBoundingClientRect();
    var bar = document.querySelector("body.phone #roll-form .roll-bar");
    var bottom = bar ? bar.getBoundingClientRect().top : window.innerHeight;
    if (box.top < 0 || box.bottom > bottom) step.scrollIntoView({ behavior: scrolling(), block: "nearest" });
  }

  document.addEventListener("htmx:afterSettle", function () {
    showContestSteps();
  });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "contests-panel") setTimeout(showContestSteps, 0);
  });

  // The take-back button of a stray tap lasts as long as the server allows it (its
  // data-seconds, rolls/play/takeback.py): then it goes, rather than answer with a refusal.
  function armTakeBack(root) {
    (root || document).querySelectorAll(".take-back[data-seconds]:not([data-armed])").forEach(function (form) {
      form.dataset.armed = "1";
      setTimeout(function () {
        form.remove();
      }, parseInt(form.dataset.seconds, 10) * 1000);
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    armTakeBack(document);
  });
  document.addEventListener("htmx:afterSettle", function () {
    armTakeBack(document);
  });

  // The phone's Roll bar is fixed to the bottom of the screen (app.css): the page keeps its
  // height free below everything, and scrolls stop above it.
  document.addEventListener("DOMContentLoaded", function () {
    var bar = document.querySelector("body.phone #roll-form .roll-bar");
    if (!bar || !window.ResizeObserver) return;
    new ResizeObserver(function () {
      var fixed = window.getComputedStyle(bar).position === "fixed";
      document.documentElement.style.setProperty("--roll-bar-height", fixed ? bar.offsetHeight + "px" : "0px");
    }).observe(bar);
  });

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
