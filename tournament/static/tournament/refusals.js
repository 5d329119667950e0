// Refusals answered to an htmx request (tournament/web/refusals.py): the server sends a
// role="alert" fragment to the page's refusal region (#refusal, by HX-Retarget) with the
// refusal's status (403, 404, 409...). base.html's htmx config swaps only 2xx and 400
// answers, so a refusal (marked by its Gibson-Refusal header) is swapped whatever its status.
// The region is emptied when the next request starts: an old refusal does not linger.
(function () {
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (e.detail.xhr && e.detail.xhr.getResponseHeader("Gibson-Refusal")) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });
  document.addEventListener("htmx:beforeRequest", function () {
    var region = document.getElementById("refusal");
    if (region) { region.innerHTML = ""; }
  });
})();
