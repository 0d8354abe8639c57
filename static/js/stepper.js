// Steppers: the "−" and "+" beside a number input change it by one, within its min and max,
// and tell the form (a "change" event that bubbles), so htmx updates the odds. Without this
// script the number input still works on its own.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-step]");
    if (!button) return;
    var input = document.getElementById(button.getAttribute("aria-controls"));
    if (!input) return;
    var before = input.value;
    if (input.value === "") input.value = input.min || "0";
    if (button.dataset.step === "up") input.stepUp();
    else input.stepDown();
    if (input.value !== before) input.dispatchEvent(new Event("change", { bubbles: true }));
  });
})();
