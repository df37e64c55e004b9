// The web push handlers (notifications/push.py), served at /push-sw.js by WhiteNoise
// (WHITENOISE_ROOT) and imported by the site's one service worker (/sw.js, templates/pwa/sw.js,
// with importScripts): the worker that keeps the offline page also shows the pushes, so a
// browser has one registration at the root and static/js/push.js subscribes with it.
//
// A push carries JSON {title, body, url, tag, game, to_move, id (the outbox row's, unused
// here)}, decrypted by the browser: shown as
// a notification (one per game: the tag replaces the previous one); a click opens the game, in
// a tab already on it when there is one.
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (error) {
    data = {};
  }
  const title = data.title || "Diamino";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: data.body || "",
      tag: data.tag || undefined,
      renotify: Boolean(data.tag),
      icon: "/static/favicon.svg",
      data: { url: data.url || "/" },
    })
  );
});

// The page a notification opens: the game its push named, on this site only (anything else
// opens the home page). A function of the worker's global scope, so a test can ask it.
function notificationTarget(notification) {
  const target = new URL((notification.data && notification.data.url) || "/", self.location.origin);
  return target.origin === self.location.origin ? target.href : self.location.origin + "/";
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = notificationTarget(event.notification);
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => client.url === url);
      if (open) return open.focus();
      return self.clients.openWindow(url);
    })
  );
});
