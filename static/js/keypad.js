// Real dice entered by hand (templates/rolls/_keypad.html): six big keys, one tap per die,
// drive the form's "faces" field, which is the whole entry without this script. The count to
// enter comes from the keypad (a follow-up's rerolled dice), from the choice that decides it
// (how many drama dice), or, on the roll form, from the odds answer (#hand-needed). The
// submit button says what is missing until the count is right; the server checks again.
(function () {
  "use strict";
  // The page's words (templates/_announcer.html draws them in its language; live.js lends them).
  function word(name, fallback) {
    return window.TabletopLive ? TabletopLive.word(name, fallback) : fallback;
  }

  function fill(text, values) {
    return text.replace(/%\((\w+)\)s/g, function (all, name) {
      return name in values ? String(values[name]) : all;
    });
  }

  function faces(pad) {
    var input = pad.querySelector("input[name=faces]");
    return input.value.replace(/[^1-6]/g, "").split("").map(Number);
  }

  function setFaces(pad, list) {
    pad.querySelector("input[name=faces]").value = list.join(" ");
    draw(pad);
  }

  function roll_form(pad) {
    return pad.closest("#roll-form");
  }

  // Whether this keypad is in use: not for a blind roll (the app rolls it); where the form
  // lets the player choose (a table where either may roll), when they ticked real dice.
  function active(pad) {
    var form = pad.closest("form");
    if (!form) return true;
    var blind = form.querySelector("input[name=blind]");
    if (blind && blind.checked) return false;
    var choice = form.querySelector("input[name=by_hand]");
    return choice ? choice.checked : true;
  }

  function needed(pad) {
    var form = roll_form(pad);
    if (form) {
      var slot = document.getElementById("hand-needed");
      var value = slot ? slot.dataset.needed : "";
      return value === "" || value === undefined ? null : parseInt(value, 10);
    }
    if (pad.dataset.choiceParam) {
      var own = pad.closest("form");
      var field = own && own.querySelector("[name='" + pad.dataset.choiceParam + "']");
      var map = {};
      pad.dataset.perChoice.split(" ").forEach(function (pair) {
        var parts = pair.split(":");
        map[parts[0]] = parseInt(parts[1], 10);
      });
      return field && field.value in map ? map[field.value] : null;
    }
    return pad.dataset.need ? parseInt(pad.dataset.need, 10) : null;
  }

  // "No dice", "1 die", "3 dice": the languages the table speaks have one form for one die
  // and one for more (templates/_announcer.html).
  function dice(count) {
    if (count === 0) return word("diceNone", "No dice");
    if (count === 1) return word("diceOne", "1 die");
    return fill(word("diceOther", "%(count)s dice"), { count: count });
  }

  function pips(face) {
    var die = document.createElement("span");
    die.className = "die d" + face;
    for (var i = 0; i < face; i++) die.appendChild(document.createElement("i"));
    return die;
  }

  function draw(pad) {
    var list = faces(pad);
    var on = active(pad);
    var need = needed(pad);
    var input = pad.querySelector("input[name=faces]");
    input.disabled = !on;
    pad.hidden = !on;
    var entered = pad.querySelector(".keypad-entered");
    entered.textContent = "";
    list.forEach(function (face) {
      entered.appendChild(pips(face));
    });
    pad.querySelectorAll(".key").forEach(function (key) {
      var face = Number(key.dataset.face);
      var count = list.filter(function (f) {
        return f === face;
      }).length;
      var badge = key.querySelector(".key-badge");
      badge.textContent = String(count);
      badge.hidden = count === 0;
      key.disabled = need !== null && list.length >= need;
    });
    var text =
      need === null
        ? fill(word("diceEntered", "%(dice)s entered"), { dice: dice(list.length) })
        : fill(word("diceEnteredOf", "%(count)s of %(dice)s entered"), { count: list.length, dice: dice(need) });
    pad.querySelector(".keypad-count").textContent = text;
    var button = submitButton(pad);
    if (!button) return;
    if (!button.dataset.label) button.dataset.label = button.firstChild.textContent.trim();
    var missing = on && need !== null && list.length !== need;
    // Still tappable (not disabled): a tap opens a folded keypad, and says what is missing.
    button.classList.toggle("waiting", missing);
    var words = !missing
      ? button.dataset.label
      : list.length < need
        ? fill(word("diceMore", "Enter %(dice)s more"), { dice: dice(need - list.length) })
        : fill(word("diceRemove", "Remove %(dice)s"), { dice: dice(list.length - need) });
    button.firstChild.textContent = words + " ";
  }

  function submitButton(pad) {
    var form = pad.closest("form");
    return form && form.querySelector(".roll-button, .call > button.primary, .follow-up > button:not([type=button])");
  }

  function setUp(root) {
    root.querySelectorAll("[data-keypad]").forEach(function (pad) {
      if (pad.dataset.ready) return;
      pad.dataset.ready = "1";
      pad.querySelector(".keypad-text").hidden = true;
      pad.querySelector(".keypad-pad").hidden = false;
      // A card may offer several follow-ups that reroll: each keypad opens when its button
      // is first tapped, so the card stays short.
      if (!roll_form(pad)) pad.classList.add("folded");
      draw(pad);
    });
  }

  document.addEventListener("click", function (event) {
    var key = event.target.closest && event.target.closest("[data-keypad] button");
    if (!key) return;
    var pad = key.closest("[data-keypad]");
    var list = faces(pad);
    if (key.dataset.face) list.push(Number(key.dataset.face));
    else if (key.hasAttribute("data-undo")) list.pop();
    else if (key.hasAttribute("data-clear")) list = [];
    setFaces(pad, list);
  });

  // A tap on a submit button whose count is wrong says so on the button and sends nothing.
  document.addEventListener(
    "click",
    function (event) {
      var button = event.target.closest && event.target.closest("button.waiting");
      if (!button) return;
      event.preventDefault();
      var pad = button.closest("form").querySelector("[data-keypad]");
      if (!pad || !pad.classList.contains("folded")) return;
      var card = pad.closest(".card") || document;
      card.querySelectorAll("[data-keypad]").forEach(function (other) {
        if (!roll_form(other)) other.classList.add("folded");
      });
      pad.classList.remove("folded");
      pad.querySelector(".key").focus();
    },
    true,
  );

  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("form");
    if (form) form.querySelectorAll("[data-keypad]").forEach(draw);
  });

  // New cards (a result, a follow-up, the socket's copies) and a new count from the odds.
  document.addEventListener("htmx:load", function (event) {
    setUp(event.detail.elt.parentNode || document);
  });

  // The odds answer brings the roll form's count (#hand-needed, swapped out of band).
  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll("#roll-form [data-keypad]").forEach(draw);
  });

  // After a roll, the roll form's entry starts afresh.
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    var xhr = event.detail.xhr;
    if (!elt || elt.id !== "roll-form" || !xhr || !xhr.status || xhr.status >= 400) return;
    if (event.detail.requestConfig.verb === "get") return;
    elt.querySelectorAll("[data-keypad]").forEach(function (pad) {
      setFaces(pad, []);
    });
  });

  document.addEventListener("DOMContentLoaded", function () {
    setUp(document);
  });
})();
