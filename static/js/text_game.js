// The screen-reader mode of the game page (issue #37; templates/games/_text_game.html).
//
// - After a poll or a move rebuilds #game-area, its data-announce (the moves played, a
//   chat message, the turn: games/text_game.announcement) goes to #text-announcer, a
//   polite live region outside the area, so it is read once.
// - A poll's swap keeps what the player was typing in the move field, and the focus.
// - After a move or a hint the focus goes to the move field (the player's turn again,
//   or a refused move, kept as typed) or else to the summary's heading.
// - Shortcuts, only when the focus is not in a text field and no modifier is held:
//   s summary, h tiles, w words, r and c the "Read the board" field, m the move field.
// - No poll while the tab is hidden (as board.js does for the board).
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

  document.addEventListener("htmx:confirm", (event) => {
    const elt = event.detail.elt;
    if (elt && elt.id === "game-area" && event.detail.verb === "get" && document.visibilityState === "hidden") {
      event.preventDefault();
    }
  });

  document.addEventListener("htmx:beforeSwap", (event) => {
    const field = document.getElementById("text-move");
    // A poll is the area's own GET; a move's or a hint's answer also targets the area.
    const config = event.detail.requestConfig;
    const poll = event.detail.elt && event.detail.elt.id === "game-area" && config && config.verb === "get";
    kept = poll && field ? { value: field.value, focused: document.activeElement === field } : null;
  });

  // htmx:load, on the new #game-area itself: the old one, the swap's target, is detached
  // by then, and what happens on it never reaches the document.
  document.addEventListener("htmx:load", (event) => {
    const area = event.detail.elt;
    if (!area || area.id !== "game-area" || !area.dataset.textGame) return;
    announce(area.dataset.announce || "");
    const field = document.getElementById("text-move");
    if (kept) {
      if (field && !field.value) field.value = kept.value;
      if (kept.focused && field) field.focus();
      else if (kept.focused) focusOn("text-summary-title");
      kept = null;
      return;
    }
    // The answer to an action (a move, a hint): htmx put the focus back on the button of
    // the same id, but the player's next step is the move field, or the summary once
    // there is no move to make.
    if (field) field.focus();
    else focusOn("text-summary-title");
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
