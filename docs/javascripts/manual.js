// The manual's accessibility fixes to the theme (tests/core/test_manual_browser.py runs axe-core):
// a wide table's scrolling box (added by the theme's script) takes the keyboard focus and says
// what it holds, and the search dialog has a name.
(function () {
  "use strict";
  function label(root) {
    root.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])").forEach(function (box) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "table (scrolls sideways)");
    });
    var search = root.querySelector(".md-search[role=dialog]:not([aria-label])");
    if (search) search.setAttribute("aria-label", "Search the manual");
  }
  label(document);
  new MutationObserver(function () { label(document); }).observe(document.documentElement, {
    childList: true,
    subtree: true,
  });
})();
