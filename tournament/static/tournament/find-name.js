// "Find my name" on the round page: keeps only the boards whose players match what is typed.
// A static file, not an inline script: the public pages are cached whole, so a nonce written
// into one response would not match the Content-Security-Policy header of the next.
(function () {
  "use strict";
  var box = document.getElementById("find-name");
  if (!box) return;
  function apply() {
    var words = box.value.toLowerCase().replace(/,/g, " ").split(/\s+/).filter(Boolean);
    var shown = 0;
    document.querySelectorAll("#boards tr[data-names]").forEach(function (row) {
      var names = row.getAttribute("data-names");
      var hit = words.every(function (w) { return names.indexOf(w) !== -1; });
      row.hidden = !hit;
      if (hit) shown += 1;
    });
    var none = document.getElementById("no-match");
    if (none) none.hidden = shown > 0;
  }
  box.addEventListener("input", apply);
  // the table polls itself while the round is played: filter the fresh rows as they are
  // swapped in (afterSwap runs before the browser paints them: no flash of every row)
  document.body.addEventListener("htmx:afterSwap", apply);
  apply();
})();
