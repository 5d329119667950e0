// Round clocks: count down to the end the server set, whatever this device's clock says.
// Each clock element carries the server's time when the page was built (data-server-now), the
// end (data-ends-at) and whether it is paused, in ms since 1970 of the server's clock. The
// first time a clock is seen, offset = server now - this device's now; the time left is then
// end - (device now + offset), so a TV whose clock is ten minutes wrong still shows the room's
// time. A static file, loaded once: the strip and the screen are swapped in again by htmx,
// and each fresh element brings its own server time.
(function () {
  "use strict";
  if (window.gibsonClocks) return;
  window.gibsonClocks = true;

  function two(n) { return (n < 10 ? "0" : "") + n; }

  function shown(seconds) {
    return Math.floor(seconds / 60) + ":" + two(seconds % 60);
  }

  function offset(el) {
    if (!el.dataset.offset) {
      el.dataset.offset = String(Number(el.dataset.serverNow) - Date.now());
    }
    return Number(el.dataset.offset);
  }

  function tick() {
    var clocks = document.querySelectorAll("[data-clock]");
    for (var i = 0; i < clocks.length; i += 1) {
      var el = clocks[i];
      var state = el.dataset.state;
      if (el.dataset.paused === "1" || !el.dataset.endsAt) continue; // paused, not started
      var now = Date.now() + offset(el);
      var left = Math.max(0, Math.ceil((Number(el.dataset.endsAt) - now) / 1000));
      var time = el.querySelector(".clock-time");
      var words = el.querySelector(".clock-state");
      var text = shown(left);
      if (time && time.textContent !== text) time.textContent = text;
      var over = left === 0;
      // the words come from the page, in its language (templates/venue/_clock.html)
      var said = over
        ? el.dataset.saidOver || "time"
        : (el.dataset.saidLeft || "{minutes} min left").replace("{minutes}", Math.ceil(left / 60));
      if (words && words.textContent !== said) words.textContent = said;
      if (over && state !== "over") {
        el.dataset.state = "over";
        el.classList.remove("clock-running");
        el.classList.add("clock-over");
      }
    }
  }

  tick();
  setInterval(tick, 250);
  document.addEventListener("htmx:afterSwap", tick);
})();
