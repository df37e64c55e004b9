{% comment %}
The service worker, served at /sw.js by diamino_site.pwa.service_worker (see its docstring).
The view fills CONFIG: the cache's name (the release), the offline page, what to store at
install, the static prefix, and whether static files come from the cache first.
{% endcomment %}{% autoescape off %}"use strict";
const CONFIG = {{ config }};
{% endautoescape %}
// Web push (notifications/push.py): the push and notificationclick handlers live in
// /push-sw.js (served by WhiteNoise, WHITENOISE_ROOT) and run in this worker, so one
// registration at the root both keeps the offline page and receives the pushes. Without that
// file the worker still installs: the site works, and this browser gets no push.
try {
  importScripts("/push-sw.js");
} catch (error) {
  // No push handler: nothing else depends on it.
}
// Install: store the offline page and the files it loads, asked again of the server (never
// the browser's HTTP cache), so the page is in the player's language of the moment.
self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CONFIG.cache)
      .then((cache) => cache.addAll(CONFIG.precache.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting())
  );
});

// Activate: drop the caches of earlier releases, and take the open pages at once.
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CONFIG.cache).map((name) => caches.delete(name))))
      .then(() => self.clients.claim())
  );
});

// A static file from the cache, or from the network and then kept.
function cacheFirst(request) {
  return caches.match(request).then((kept) => kept || fetchAndKeep(request));
}

// A static file from the network (and kept), or from the cache when the network is gone.
function networkFirst(request) {
  return fetchAndKeep(request).catch(() =>
    caches.match(request).then((kept) => kept || Promise.reject(new Error("offline")))
  );
}

function fetchAndKeep(request) {
  return fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CONFIG.cache).then((cache) => cache.put(request, copy));
    }
    return response;
  });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return; // a move, a message, a form: the network's alone
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;

  // A page: always the network's. Never a copy (a game page shows a position and a hand that
  // only the server knows now); the offline page only when the network cannot be reached.
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match(CONFIG.offline)));
    return;
  }

  if (url.pathname.startsWith(CONFIG.static)) {
    event.respondWith(CONFIG.staticFromCacheFirst ? cacheFirst(request) : networkFirst(request));
  }
  // Anything else (htmx's answers, the polls, the favicon of a turn): not handled here, so
  // the browser asks the network as if there were no worker, and nothing is kept.
});
