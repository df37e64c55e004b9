// The settings' "Turn on notifications on this device" (notifications/push.py). The browser's
// permission prompt comes only after the player's click; then the site's service worker (/sw.js,
// at the root, which imports the push handlers of /push-sw.js) subscribes with the site's VAPID
// public key, and the subscription is posted to the site, which says whether it took it.
(() => {
  const button = document.getElementById("push-turn-on");
  const status = document.getElementById("push-status");
  if (!button || !status) return;
  const say = (text) => {
    status.textContent = text;
  };
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    say(status.dataset.unsupported);
    return;
  }
  button.hidden = false;

  // The VAPID key is base64url; PushManager.subscribe takes its bytes.
  const keyBytes = (base64url) => {
    const base64 = (base64url + "=".repeat((4 - (base64url.length % 4)) % 4))
      .replace(/-/g, "+")
      .replace(/_/g, "/");
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  };
  const csrfToken = () => {
    // The page's htmx headers carry the token (base.html), as for every other request.
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (error) {
      return "";
    }
  };

  // Subscribing needs an active worker: the one site.js registers at the root (registering
  // it again gives the same registration), waited for until it is activated.
  const activated = (registration) => {
    const worker = registration.installing || registration.waiting;
    if (registration.active || !worker) return Promise.resolve();
    return new Promise((resolve) => {
      worker.addEventListener("statechange", () => {
        if (worker.state === "activated") resolve();
      });
    });
  };

  // Before one worker did both, the push handlers had a registration of their own (/push-sw/):
  // its subscription is dropped, so a device is told once (the site forgets it at the push
  // service's 410).
  const forgetOldWorker = async () => {
    const old = await navigator.serviceWorker.getRegistration("/push-sw/");
    if (!old || !old.scope.endsWith("/push-sw/")) return;
    const subscription = await old.pushManager.getSubscription();
    if (subscription) await subscription.unsubscribe();
    await old.unregister();
  };

  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        say(status.dataset.denied);
        return;
      }
      const worker = document.documentElement.dataset.serviceWorker || "/sw.js";
      const registration = await navigator.serviceWorker.register(worker, { scope: "/" });
      await activated(registration);
      await forgetOldWorker().catch(() => {});
      const subscription =
        (await registration.pushManager.getSubscription()) ||
        (await registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: keyBytes(button.dataset.vapidKey),
        }));
      const response = await fetch(button.dataset.url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(subscription.toJSON()),
      });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        say(answer.error || status.dataset.failed);
        return;
      }
      window.location.reload(); // the list of devices, with this one and the site's message
    } catch (error) {
      say(status.dataset.failed);
    } finally {
      button.disabled = false;
    }
  });
})();
