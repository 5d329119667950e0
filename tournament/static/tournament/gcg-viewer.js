// The game viewer: steps through a GCG record's turns (buttons, arrow keys, a swipe on the
// board). The page is complete without it (the final board and the score sheet); the steps
// come from the page's JSON data block (tournament.web.gcg.viewer).
(function () {
  "use strict";
  var data = document.getElementById("gcg-steps");
  var table = document.getElementById("gcg-board");
  if (!data || !table) return;
  var info = JSON.parse(data.textContent);
  var steps = info.steps, names = info.names, words = info.words || {};
  var last = steps.length - 1, at = last;
  var cells = [];
  var rows = table.querySelectorAll("tr");
  for (var r = 1; r < rows.length; r++) cells.push(rows[r].querySelectorAll("td"));
  var status = document.getElementById("gcg-status");
  var rack = document.getElementById("gcg-rack");
  var note = document.getElementById("gcg-note");
  var caption = document.getElementById("gcg-caption");
  var sheetRows = document.querySelectorAll("#gcg-sheet tr[data-step]");

  // a phrase in the page's language (the JSON's words), its {at}/{last} filled in
  function say(key, english, values) {
    var text = words[key] || english;
    Object.keys(values || {}).forEach(function (k) { text = text.split("{" + k + "}").join(values[k]); });
    return text;
  }

  function show(n) {
    at = Math.max(0, Math.min(last, n));
    var step = steps[at], fresh = {};
    step.placed.forEach(function (p) { fresh[p[0] * 15 + p[1]] = true; });
    for (var i = 0; i < 15; i++) {
      for (var j = 0; j < 15; j++) {
        var td = cells[i][j], letter = step.rows[i].charAt(j);
        var base = td.className.replace(/\s*\b(tile|blank|new)\b/g, "");
        if (letter === ".") {
          td.className = base;
          td.innerHTML = "";
          var mark = document.createElement("span");
          mark.className = "mark";
          mark.setAttribute("aria-hidden", "true");
          mark.textContent = td.getAttribute("data-mark");
          td.appendChild(mark);
        } else {
          var blank = letter !== letter.toUpperCase();
          td.className = base + " tile" + (blank ? " blank" : "") + (fresh[i * 15 + j] ? " new" : "");
          td.textContent = letter.toUpperCase();
        }
      }
    }
    for (var s = 0; s < 2; s++) {
      document.getElementById("gcg-score-" + s).querySelector("strong").textContent = step.totals[s];
    }
    var said = at === 0 ? say("start", "Start of the game") :
      say("turn", "Turn {at} of {last}:", { at: at, last: last }) + " " + names[step.who] +
      " " + step.text + " " + (step.score >= 0 ? "+" : "") + step.score;
    status.textContent = said;
    caption.textContent = at === 0 ? say("empty", "The empty board") :
      say("after", "The board after turn {at}", { at: at });
    rack.textContent = step.rack;
    note.textContent = step.note;
    note.hidden = !step.note;
    sheetRows.forEach(function (row) {
      if (Number(row.getAttribute("data-step")) === at) row.setAttribute("aria-current", "step");
      else row.removeAttribute("aria-current");
    });
  }

  function on(id, n) {
    document.getElementById(id).addEventListener("click", function () { show(n()); });
  }
  on("gcg-first", function () { return 0; });
  on("gcg-prev", function () { return at - 1; });
  on("gcg-next", function () { return at + 1; });
  on("gcg-last", function () { return last; });
  document.querySelectorAll("#gcg-sheet button.jump").forEach(function (b) {
    b.addEventListener("click", function () { show(Number(b.getAttribute("data-step"))); });
  });
  document.addEventListener("keydown", function (e) {
    var t = e.target, tag = t && t.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || e.altKey || e.ctrlKey || e.metaKey) return;
    var to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  });
  var box = document.getElementById("gcg-board-box"), x0 = null, y0 = null;
  box.addEventListener("touchstart", function (e) {
    x0 = e.changedTouches[0].clientX; y0 = e.changedTouches[0].clientY;
  }, { passive: true });
  box.addEventListener("touchend", function (e) {
    if (x0 === null) return;
    var dx = e.changedTouches[0].clientX - x0, dy = e.changedTouches[0].clientY - y0;
    x0 = null;
    if (Math.abs(dx) > 40 && Math.abs(dx) > 2 * Math.abs(dy)) show(dx < 0 ? at + 1 : at - 1);
  }, { passive: true });
})();
