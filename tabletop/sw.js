// Tabletop's service worker (served at /sw.js by tabletop/phone_app.py, which writes VERSION,
// SHELL and OFFLINE above this line). It keeps the page shell only:
// - on install, the static files in SHELL and the offline page, in one cache per VERSION;
// - a request for one of those exact URLs is answered from that cache;
// - a page the phone opens (a navigation) always goes to the network, and only when the
//   network fails does the phone get the offline page ("the table needs a connection");
// - everything else (htmx partials, POSTs, the socket, /api/, another site) is left alone:
//   the worker does not answer it, so the browser fetches it as if there were no worker.
// Nothing is ever written to the cache after install: no campaign page, no roll, no partial.
"use strict";

const CACHE = "tabletop-shell-" + VERSION;
const KEPT = new Set(SHELL.concat([OFFLINE]).map(function (path) {
  return new URL(path, self.location.origin).href;
}));

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches
      .open(CACHE)
      .then(function (cache) {
        // "reload": the server's copy, never the browser's HTTP cache of an older one.
        return cache.addAll(Array.from(KEPT, function (url) {
          return new Request(url, { cache: "reload", credentials: "omit" });
        }));
      })
      .then(function () {
        return self.skipWaiting();
      })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches
      .keys()
      .then(function (names) {
        return Promise.all(
          names
            .filter(function (name) {
              return name.indexOf("tabletop-shell-") === 0 && name !== CACHE;
            })
            .map(function (name) {
              return caches.delete(name);
            })
        );
      })
      .then(function () {
        return self.clients.claim();
      })
  );
});

self.addEventListener("fetch", function (event) {
  const request = event.request;
  if (request.method !== "GET") return; // a roll, a follow-up, a form: the network's
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (KEPT.has(url.href) && url.href !== new URL(OFFLINE, self.location.origin).href) {
    event.respondWith(
      caches.match(request, { cacheName: CACHE }).then(function (kept) {
        return kept || fetch(request);
      })
    );
    return;
  }
  if (request.mode === "navigate") {
    // The live page from the network, never from a cache; the offline page when there is none.
    event.respondWith(
      fetch(request).catch(function () {
        return caches.match(OFFLINE, { cacheName: CACHE }).then(function (page) {
          return page || Response.error();
        });
      })
    );
  }
  // Anything else: no answer from here, so the browser goes to the network itself.
});
