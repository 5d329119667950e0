// The pairings slide loop (a venue screen's browser source): one slide of a dozen boards at a
// time, the next every data-seconds. The live stream swaps the slides in again when the round
// is re-paired; the loop then carries on from the first.
(function () {
  "use strict";
  if (window.gibsonSlides) return;
  window.gibsonSlides = true;
  var shown = 0;
  function step() {
    var box = document.querySelector("[data-slides]");
    if (!box) return;
    var slides = box.querySelectorAll(".slide");
    if (slides.length < 2) return;
    shown = (shown + 1) % slides.length;
    for (var i = 0; i < slides.length; i += 1) slides[i].hidden = i !== shown;
  }
  var box = document.querySelector("[data-slides]");
  var seconds = Number((box && box.dataset.seconds) || 8);
  setInterval(step, seconds * 1000);
  document.addEventListener("htmx:afterSwap", function () { shown = 0; });
})();
