// Club night pages (tournament/clubs/web/nights.py). A static file, not an inline script: the
// Content-Security-Policy runs only this site's files and nonced scripts.
(function () {
  "use strict";

  // New night: count the members ticked, and keep one draw select a game (the last repeats).
  var nightForm = function () { return document.getElementById("night-form"); };
  function countTicked() {
    var form = nightForm();
    var out = document.getElementById("here-count");
    if (!form || !out) return;
    out.textContent = form.querySelectorAll('input[name="players"]:checked').length;
  }
  function fitDraws() {
    var form = nightForm();
    if (!form) return;
    var games = parseInt((form.querySelector('input[name="games"]') || {}).value, 10);
    var box = document.getElementById("draws");
    if (!box || !(games >= 1 && games <= 12)) return;
    var slots = box.querySelectorAll("label[data-game]");
    for (var n = slots.length; n < games; n++) {
      var copy = slots[slots.length - 1].cloneNode(true);
      copy.setAttribute("data-game", String(n + 1));
      // the label comes from the page, in its language (templates/clubs/night_new_form.html)
      copy.firstChild.textContent = (box.dataset.gameLabel || "Game {number}").replace("{number}", n + 1);
      copy.querySelector("select").value = slots[slots.length - 1].querySelector("select").value;
      box.appendChild(copy);
    }
    box.querySelectorAll("label[data-game]").forEach(function (slot) {
      var hidden = parseInt(slot.getAttribute("data-game"), 10) > games;
      slot.hidden = hidden;
      slot.querySelector("select").disabled = hidden;
    });
  }
  document.addEventListener("change", function (e) {
    if (!nightForm() || !nightForm().contains(e.target)) return;
    if (e.target.name === "players") countTicked();
    if (e.target.name === "games") fitDraws();
  });
  document.addEventListener("input", function (e) {
    if (nightForm() && e.target.name === "games") fitDraws();
  });
  document.body.addEventListener("htmx:afterSwap", function () { countTicked(); fitDraws(); });
  countTicked();
  fitDraws();

  // Run page: the result box empties as the line is sent and gets it back if refused, so
  // the next line can be typed at once and a typo is fixed without retyping.
  var form = document.getElementById("result-form");
  var box = document.getElementById("id_line");
  if (!form || !box) return;
  var sent = "";
  form.addEventListener("htmx:configRequest", function () {
    sent = box.value;
    box.value = "";
  });
  form.addEventListener("htmx:afterRequest", function (e) {
    var status = e.detail.xhr ? e.detail.xhr.status : 0;
    if (status !== 200 && box.value === "") { box.value = sent; box.select(); }
    box.focus();
  });
})();
