// The screen-reader mode of the game page (issue #37; templates/games/_text_game.html).
//
// - After a poll or a move rebuilds #game-area, its data-announce (the moves played, a
//   chat message, the turn, the queued move: games/text_game.announcement) goes to
//   #text-announcer, a polite live region outside the area, so it is read once.
// - A poll's swap keeps what the player was typing in the move field, the kind of
//   queued move chosen, and the focus (a focus the new area cannot take again goes to
//   the move field, or else to the summary's heading, never to the page's body).
// - After a move, a queued move, a hint or a cancel the focus goes to the move field
//   (the player's turn again, the next move to queue, or a refused move, kept as typed)
//   or else to the summary's heading.
// - An action sent from the area (Play, Read back, Play when my turn comes, a hint, a
//   cancel) and the area's poll never cross (site.js): a poll answered in between would
//   replace the area under the action, whose answer would be lost, and the focus with it.
// - Shortcuts, only when the focus is not in a text field and no modifier is held:
//   s summary, h tiles, w words, r and c the "Read the board" field, m the move field.
(function () {
  "use strict";

  const TYPING = "input, textarea, select, [contenteditable], [contenteditable=true]";
  let kept = null; // the move field's text and focus, across a poll's swap

  function focusOn(id) {
    const el = document.getElementById(id);
    if (!el) return false;
    if (!el.hasAttribute("tabindex") && !el.matches("input, button, a, select, textarea")) {
      el.setAttribute("tabindex", "-1");
    }
    el.focus();
    return true;
  }

  function announce(text) {
    const region = document.getElementById("text-announcer");
    if (!region || !text) return;
    region.textContent = "";
    // A new text node in an emptied region: read even when the same words come twice.
    window.setTimeout(() => { region.textContent = text; }, 50);
  }

  const area = () => document.getElementById("game-area");
  // A request of the area itself (its hx-get) is the poll; it never crosses an action
  // sent from the area, nor goes while the tab is hidden (site.js).
  const isPoll = (elt, verb) => Boolean(elt) && elt.id === "game-area" && verb === "get";

  document.addEventListener("htmx:beforeSwap", (event) => {
    const detail = event.detail;
    const current = area();
    if (!detail.shouldSwap || !current || detail.target !== current) return;
    const field = document.getElementById("text-move");
    const active = document.activeElement;
    const keep = current.querySelector("input[name=keep]:checked");
    kept = isPoll(detail.elt, detail.requestConfig && detail.requestConfig.verb)
      ? {
          value: field ? field.value : "",
          focused: Boolean(field) && active === field,
          // Not the body: a screen reader in browse mode often leaves the focus there while
          // it reads elsewhere, and a poll must not pull its reading to the move field.
          inArea: Boolean(active) && active !== current && current.contains(active),
          keep: keep ? keep.value : "",
        }
      : null;
  });

  function lost() {
    const active = document.activeElement;
    return !active || active === document.body || !active.isConnected;
  }

  function toTheMove() {
    const field = document.getElementById("text-move");
    if (field) field.focus();
    else focusOn("text-summary-title");
  }

  // htmx:load, on the new #game-area itself: the old one, the swap's target, is detached
  // by then, and what happens on it never reaches the document.
  document.addEventListener("htmx:load", (event) => {
    const fresh = event.detail.elt;
    if (!fresh || fresh.id !== "game-area" || !fresh.dataset.textGame) return;
    announce(fresh.dataset.announce || "");
    const field = document.getElementById("text-move");
    const poll = kept;
    kept = null;
    if (poll) {
      if (field && !field.value) field.value = poll.value;
      if (poll.keep) {
        const choice = fresh.querySelector(`input[name=keep][value="${poll.keep}"]`);
        if (choice) choice.checked = true;
      }
      // htmx gave the focus back to the control of the same id; one the new area does
      // not have (a button gone with the turn) leaves it on the body: bring it back.
      if (poll.focused && field) field.focus();
      else if (poll.inArea && lost()) toTheMove();
      return;
    }
    // The answer to an action (a move, a queued move, a hint, a cancel): htmx put the
    // focus back on the button of the same id, but the player's next step is the move
    // field, or the summary once there is no move to make.
    toTheMove();
  });

  document.addEventListener("DOMContentLoaded", () => {
    const field = document.getElementById("text-move");
    if (field && field.dataset.focus) field.focus();
  });

  const KEYS = {
    s: () => focusOn("text-summary-title"),
    h: () => focusOn("text-hand-title") || focusOn("text-summary-title"),
    w: () => focusOn("text-words-title"),
    m: () => focusOn("text-move"),
    r: () => focusOn("text-read"),
    c: () => focusOn("text-read"),
  };

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.altKey || event.metaKey || event.shiftKey || event.isComposing) return;
    const target = event.target;
    if (target && target.closest && target.closest(TYPING)) return;
    const act = KEYS[event.key];
    if (!act) return;
    if (act()) event.preventDefault();
  });
})();
