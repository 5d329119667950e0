// The live stream: a public page hears of each write at once instead of polling every 15 s.
// The <script> tag carries the stream's address (data-live) and the id of the last write the
// page was built at (data-since). Each message names a write (its audit id and kind); the page
// then fetches its live parts again: every element with a "live-change from:body" trigger
// (htmx, the same request its polling makes, answered from the cache). While the stream is
// open the polling rests; when it drops, polling carries on and EventSource reconnects with
// Last-Event-ID, so the writes missed meanwhile (a server restart) are sent on return.
(function () {
  "use strict";
  var me = document.currentScript;
  if (window.gibsonLive || !me || !window.EventSource) return;
  var base = me.dataset.live;
  if (!base) return;
  var live = (window.gibsonLive = { open: false, last: Number(me.dataset.since || 0) });
  if (base.charAt(0) === ":") base = location.protocol + "//" + location.hostname + base;
  var url = base.replace(/\/$/, "") + me.dataset.path + "?since=" + live.last;
  var pending = null;

  var lastRefresh = 0;
  function refresh(kind) {
    if (kind === "reload") { location.reload(); return; }
    document.documentElement.dataset.liveKind = kind;
    if (pending) return;
    // several writes in a burst (a pairing of 200 boards, results typed one a second): one
    // refresh for them, at most one a second; spread over 0.1 s so a crowd's pages do not
    // all ask in the same millisecond
    var wait = Math.max(30, lastRefresh + 1000 - Date.now()) + Math.floor(Math.random() * 100);
    pending = setTimeout(function () {
      pending = null;
      lastRefresh = Date.now();
      document.body.dispatchEvent(new CustomEvent("live-change", { bubbles: true }));
    }, wait);
  }

  function connect() {
    var source = new EventSource(url);
    source.onopen = function () {
      live.open = true;
      document.documentElement.dataset.live = "open";
    };
    source.onerror = function () {
      live.open = false;
      document.documentElement.dataset.live = "closed";
    };
    source.onmessage = function (e) {
      var change = {};
      try { change = JSON.parse(e.data); } catch (err) { return; }
      if (change.id) live.last = change.id;
      refresh(change.kind || "change");
    };
  }

  // htmx's own timer (no triggering event) rests while the stream is open
  document.addEventListener("htmx:configRequest", function (e) {
    if (live.open && !e.detail.triggeringEvent && e.detail.elt.hasAttribute("data-live-part")) {
      e.preventDefault();
    }
  });
  connect();
})();
