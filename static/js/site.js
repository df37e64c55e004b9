// Behaviour every page may need, kept out of the markup: the site's Content-Security-Policy
// allows no inline script or handler (docs/ARCHITECTURE.md, "Security headers").
(() => {
  // A rate limit (HTTP 429) answers with a fragment made for the place it goes (the move's
  // error, the chat's, the preview, the word check…): show it there as for any answer.
  document.addEventListener("htmx:beforeSwap", (event) => {
    if (event.detail.xhr && event.detail.xhr.status === 429) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // An area marked data-swap-only-own takes an htmx answer only if the answer is that area
  // again (a refusal included). Anything else — the log-in page after the session ended, a
  // CSRF or server error page — is not ours to nest in the page: load the page again instead,
  // and it says where the player stands.
  document.addEventListener("htmx:beforeSwap", (event) => {
    const area = event.target.closest && event.target.closest("[data-swap-only-own]");
    if (!area) return;
    const ours = new RegExp(`id="${area.id}"`).test(event.detail.xhr.responseText);
    event.detail.shouldSwap = ours;
    event.detail.isError = !ours;
    if (!ours) window.location.reload();
  });

  // A form marked data-reset-after-send empties itself once its message is taken (the chat),
  // not when the answer shows an error next to it.
  document.addEventListener("htmx:afterRequest", (event) => {
    const form = event.target.closest && event.target.closest("form[data-reset-after-send]");
    if (form && event.detail.successful && !document.querySelector("#chat-body .chat-error")) {
      form.reset();
    }
  });

  // The page's poll brings the chat when its count of messages changed (#chat-seen). A poll
  // sent before the player's own message and answered after it brings a chat no newer than
  // the one the message's answer showed, without that answer's refusal ("Slow down"): the
  // chat shown stays. Only a chat holding more messages replaces it.
  document.addEventListener("htmx:oobBeforeSwap", (event) => {
    const { target, fragment } = event.detail;
    if (!target || target.id !== "chat-body" || !fragment) return;
    const shown = target.querySelector("#chat-seen");
    const brought = fragment.querySelector("#chat-seen");
    if (shown && brought && Number(brought.value) <= Number(shown.value)) {
      event.detail.shouldSwap = false;
    }
  });

  // The game page's poll (#game-area's own hx-get) waits while the tab is hidden (no
  // request a player cannot see) and goes at once when it shows again: its hx-trigger has
  // "visibilitychange from:document", which this lets through only then. And it never
  // crosses an action sent from the area (Play, a preview, a hint, Resign, a text move):
  // the action aborts the poll in flight, and no poll leaves until every action's answer
  // is in (a preview too: a poll then waits a few tenths of a second more). A poll answered in between would replace the area under the action, whose answer,
  // aimed at the old area, would be lost (and the focus with it).
  const acting = new Set(); // the XMLHttpRequests of actions sent from the area, until each ends
  document.addEventListener("htmx:confirm", (event) => {
    const elt = event.detail.elt;
    if (!elt || elt.id !== "game-area" || event.detail.verb !== "get") return;
    if (document.visibilityState === "hidden" || acting.size) event.preventDefault();
  });
  document.addEventListener("htmx:beforeRequest", (event) => {
    const area = document.getElementById("game-area");
    const elt = event.detail.elt;
    if (!area || !elt || elt === area || !area.contains(elt)) return;
    const xhr = event.detail.xhr;
    acting.add(xhr);
    xhr.addEventListener("loadend", () => acting.delete(xhr));
    if (window.htmx) window.htmx.trigger(area, "htmx:abort"); // the poll in flight, if any
  });

  // The installable app's service worker (diamino_site/pwa.py): it keeps the static files
  // and an offline page, never a game page. Registered once the page has loaded, so that
  // its first download never competes with the page's own files.
  const worker = document.documentElement.dataset.serviceWorker;
  if (worker && "serviceWorker" in navigator) {
    window.addEventListener("load", () => {
      navigator.serviceWorker.register(worker, { scope: "/" }).catch(() => {
        // No worker (a private window, a browser that refuses it): the site works without it.
      });
    });
  }
})();
