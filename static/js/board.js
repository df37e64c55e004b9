/* Diamino — the game board.
 *
 * Everything here stays on the client until the move is sent: picking tiles
 * (tap, drag with Pointer events, or the keyboard), the typing direction, the
 * diable letters, the red-devil returns and the exchange selection. The page
 * is server-rendered; this script only reads data-* attributes, fills the
 * hidden inputs of #move-form (placements, returns, exchange) and asks htmx
 * for a preview after each change. No framework, no build step.
 *
 * Formats sent to the server (see templates/games/game.html):
 *   placements  "H8=C,I8=H,J8=a"  square=letter; lower case = a diable for that letter
 *   (the form format of docs/NOTATION.md, "The move form")
 *   returns     "EQ?"             letters given back for red devils ("?" = a diable)
 *   exchange    "QK"              letters put back in an exchange
 */
(() => {
  "use strict";

  const COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const DIABLE = "?";
  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
  const format = (text, values) => text.replace(/%\((\w+)\)s/g, (_, key) => values[key] ?? "");

  // The page's state; rebuilt by init() whenever htmx swaps a new #game-area in.
  let area, board, hand, form, previewTrigger, announcer;
  let squares = new Map(); // "H8" -> the square element
  let width = 0;
  let height = 0;
  let myTurn = false;
  let canQueue = false; // not the player's turn: a placement is queued for it ("Play when my turn comes")
  let pending = []; // [{square, letter, diable, tile}] in the order placed
  let selected = null; // the hand tile waiting for a square
  let cursor = null; // where typed letters start
  let typed = 0; // letters typed since the cursor was set
  let typing = Promise.resolve(); // the typed letters, placed one after the other
  let direction = "across";
  let mode = "place"; // or "exchange"
  let exchange = new Set(); // hand tiles chosen for an exchange
  let returns = new Set(); // hand tiles chosen as red-devil returns
  let returnsNeeded = 0;
  let choiceTiles = new Map(); // a button of the returns picker -> its hand tile
  let previewOk = false;
  let replaying = false; // the replay shows an earlier move: the board takes no tile
  let emptyPreview = "";
  let suppressClickUntil = 0;
  let rebuilt = null; // set when htmx replaces #game-area: {focus, kept, turn} (afterRebuild)
  // The board square last used (the roving tabindex's), by name: it outlives the
  // rebuilds of #game-area, so the board's Tab stop and a lost focus come back to it.
  let lastSquare = null;
  // The order of the hand chosen on this page ("Sort" list, Shuffle): it too outlives the rebuilds.
  let handOrder = null;
  // The unseen tiles by letter, opened or folded by the player: null until they do, and
  // then kept through the rebuilds (a move, a poll), which would otherwise fold them again.
  let unseenOpen = null;
  const wide = window.matchMedia("(min-width: 900px)");

  /* ---------------------------------------------------------------- helpers */

  const t = (el, key, values = {}) => format((el && el.dataset[key]) || "", values);

  function announce(text) {
    if (!announcer || !text) return;
    announcer.textContent = "";
    // A fresh text node makes screen readers repeat an identical message.
    requestAnimationFrame(() => { announcer.textContent = text; });
  }

  function coords(sq) {
    const name = sq.dataset.square;
    return [COLUMNS.indexOf(name[0]), Number(name.slice(1)) - 1];
  }

  function squareAt(col, row) {
    if (col < 0 || row < 0 || col >= width || row >= height) return null;
    return squares.get(COLUMNS[col] + (row + 1)) || null;
  }

  const pendingAt = (sq) => pending.find((p) => p.square === sq);
  const isFree = (sq) => !sq.dataset.letter && !pendingAt(sq);
  const handTiles = () => (hand ? $$(".hand-tile", hand) : []);
  const freeTiles = () => handTiles().filter((tile) => !tile.classList.contains("is-placed"));

  function tileMarkup(letter, value, diable, extraClass) {
    const span = document.createElement("span");
    // No template literal inside another: collectstatic's minifier (rjsmin) mangles them.
    span.className = ["tile", "board-tile", diable && "is-diable", extraClass].filter(Boolean).join(" ");
    span.setAttribute("aria-hidden", "true");
    // Two words in the page's text, "R 1", as the square's name says them (see tile_face in board.py).
    span.innerHTML = '<span class="tile-letter"></span> <span class="tile-value"></span>';
    span.firstChild.textContent = letter;
    span.lastChild.textContent = diable ? "0" : String(value ?? "");
    return span;
  }

  /** "1 point", "3 points": the plural form of the page's language, as gettext picks it. */
  function pointsLabel(value) {
    const plural = new Intl.PluralRules(document.documentElement.lang || "fr").select(value);
    return t(board, plural === "one" ? "tPoint" : "tPoints", { counter: value });
  }

  /** The accessible name of an empty square: "C3, red devil, empty". */
  function emptyLabel(sq) {
    const kind = sq.dataset.kind;
    const kindLabel = kind === "plain" ? "" : `${t(board, "t" + kind[0].toUpperCase() + kind.slice(1))}, `;
    return `${sq.dataset.square}, ${kindLabel}${t(board, "tEmpty")}`;
  }

  /** The accessible name of a square with a tile: "J7, letter R, 1 point, last move". */
  function tileLabel(sq, letter, value, diable, extra) {
    let label = `${sq.dataset.square}, ${t(board, "tLetter", { letter })}`;
    const points = diable ? 0 : Number.parseInt(value, 10);
    if (!Number.isNaN(points)) label += `, ${pointsLabel(points)}`;
    if (diable) label += `, ${t(board, "tDiable")}`;
    if (extra) label += `, ${extra}`;
    return label;
  }

  /* ------------------------------------------------------- roving tabindex */

  function focusSquare(sq, moveFocus = true) {
    if (!sq) return;
    for (const other of squares.values()) if (other !== sq && other.tabIndex !== -1) other.tabIndex = -1;
    sq.tabIndex = 0;
    lastSquare = sq.dataset.square;
    if (moveFocus) sq.focus();
  }

  function setCursor(sq) {
    if (cursor) cursor.classList.remove("is-cursor", "dir-across", "dir-down");
    cursor = sq;
    typed = 0;
    if (cursor) {
      cursor.classList.add("is-cursor", `dir-${direction}`);
      announce(`${t(announcer, "tStart", { square: sq.dataset.square })} ${t(announcer, "t" + (direction === "across" ? "Across" : "Down"))}`);
    }
  }

  function toggleDirection() {
    direction = direction === "across" ? "down" : "across";
    const button = $("#direction-toggle");
    if (button) button.textContent = t(button, direction === "across" ? "tAcross" : "tDown");
    if (cursor) {
      cursor.classList.remove("dir-across", "dir-down");
      cursor.classList.add(`dir-${direction}`);
    }
    announce(t(announcer, direction === "across" ? "tAcross" : "tDown"));
  }

  /* ------------------------------------------------------- the diable dialog */

  /** Ask which letter a diable stands for; resolves to "A".."Z" or null. */
  function askDiable(suggested) {
    const dialog = $("#diable-dialog");
    if (!dialog || typeof dialog.showModal !== "function") {
      const answer = window.prompt("A–Z", suggested || "");
      const letter = (answer || "").trim().toUpperCase();
      return Promise.resolve(/^[A-Z]$/.test(letter) ? letter : null);
    }
    const hint = $("#diable-hint");
    hint.textContent = suggested ? t(hint, "tTyped", { letter: suggested }) : "";
    dialog.returnValue = "";
    return new Promise((resolve) => {
      const onKey = (event) => {
        if (/^[a-z]$/i.test(event.key)) {
          event.preventDefault();
          dialog.close(event.key.toUpperCase());
        }
      };
      dialog.addEventListener("keydown", onKey);
      dialog.addEventListener("close", () => {
        dialog.removeEventListener("keydown", onKey);
        resolve(/^[A-Z]$/.test(dialog.returnValue) ? dialog.returnValue : null);
      }, { once: true });
      dialog.showModal();
      const first = suggested ? $(`.letter-choice[value="${suggested}"]`, dialog) : $(".letter-choice", dialog);
      if (first) first.focus();
    });
  }

  /* ---------------------------------------------------------- the move */

  /** Play, or "Play when my turn comes" while another player is to move. */
  const playButton = () => $("#play-button") || $("#queue-button");

  function canPlace() {
    return (myTurn || canQueue) && mode === "place" && form && !replaying;
  }

  /** Put a hand tile on a free square; a diable asks for its letter first. */
  async function place(tile, sq, letter) {
    if (!canPlace() || !tile || !sq || !isFree(sq) || tile.classList.contains("is-placed")) return false;
    const diable = tile.dataset.letter === DIABLE;
    if (diable) {
      letter = await askDiable(letter);
      if (!letter || !isFree(sq)) return false;
    } else {
      letter = tile.dataset.letter;
    }
    pending.push({ square: sq, letter, diable, tile });
    tile.classList.add("is-placed");
    returns.delete(tile);
    select(null);
    changed();
    return true;
  }

  function takeBack(sq) {
    const entry = pendingAt(sq);
    if (!entry) return;
    pending = pending.filter((p) => p !== entry);
    entry.tile.classList.remove("is-placed");
    announce(t(announcer, "tBack", { square: sq.dataset.square }));
    changed();
  }

  function clearMove() {
    for (const entry of pending) entry.tile.classList.remove("is-placed");
    pending = [];
    select(null);
    setCursor(null);
    changed();
  }

  function select(tile) {
    if (selected) selected.setAttribute("aria-pressed", "false");
    selected = tile && selected !== tile ? tile : null;
    if (selected) selected.setAttribute("aria-pressed", "true");
  }

  /** Place the next typed letter after the cursor, skipping occupied squares. */
  async function typeLetter(key) {
    if (!canPlace() || !cursor) return;
    const wanted = key.toUpperCase();
    let [col, row] = coords(cursor);
    const [dc, dr] = direction === "across" ? [1, 0] : [0, 1];
    let sq = squareAt(col, row);
    while (sq && !isFree(sq)) {
      col += dc;
      row += dr;
      sq = squareAt(col, row);
    }
    if (!sq) return announce(t(announcer, "tNoRoom"));
    const tiles = freeTiles();
    const tile = tiles.find((x) => x.dataset.letter === wanted) || tiles.find((x) => x.dataset.letter === DIABLE);
    if (!tile) return announce(t(announcer, "tNoLetter", { letter: wanted }));
    if (await place(tile, sq, wanted)) {
      typed += 1;
      // Show where the next letter will go.
      let next = squareAt(col + dc, row + dr);
      while (next && !isFree(next)) {
        const [c, r] = coords(next);
        next = squareAt(c + dc, r + dr);
      }
      focusSquare(next || sq);
    }
  }

  /** Redraw the pending tiles, fill the hidden inputs, ask for a preview. */
  function changed() {
    for (const sq of squares.values()) {
      const entry = pendingAt(sq);
      const shown = $(".board-tile.is-pending", sq);
      if (shown && (!entry || shown.dataset.for !== entry.letter + entry.diable)) shown.remove();
      if (entry && !$(".board-tile.is-pending", sq)) {
        const tile = tileMarkup(entry.letter, entry.tile.dataset.value, entry.diable, "is-pending");
        tile.dataset.for = entry.letter + entry.diable;
        sq.append(tile);
      }
      sq.classList.toggle("has-pending", Boolean(entry));
      if (entry) sq.setAttribute("aria-label", tileLabel(sq, entry.letter, entry.tile.dataset.value, entry.diable, t(board, "tNew")));
      else if (!sq.dataset.letter) sq.setAttribute("aria-label", emptyLabel(sq));
    }
    const placements = pending
      .map((p) => `${p.square.dataset.square}=${p.diable ? p.letter.toLowerCase() : p.letter}`)
      .join(",");
    const input = $("#move-placements");
    if (input) input.value = placements;
    writeReturns();
    previewOk = false;
    refreshButtons();
    if (!form) return;
    if (pending.length === 0) {
      if (previewTrigger && window.htmx) window.htmx.trigger(previewTrigger, "htmx:abort");
      const preview = $("#preview");
      if (preview && emptyPreview) preview.outerHTML = emptyPreview;
      returnsNeeded = 0;
      renderReturnsPicker();
    } else if (previewTrigger && window.htmx) {
      window.htmx.trigger(previewTrigger, "preview-move");
    }
  }

  function writeReturns() {
    const input = $("#move-returns");
    if (input) input.value = Array.from(returns).map((tile) => tile.dataset.letter).join("");
  }

  function refreshButtons() {
    const play = playButton();
    if (play) {
      play.disabled = !(mode === "place" && pending.length && previewOk && returns.size === returnsNeeded);
    }
    const confirm = $("#exchange-confirm");
    if (confirm) confirm.disabled = exchange.size === 0;
  }

  /** Called whenever htmx puts a new #preview in the page. */
  function onPreview(preview) {
    previewOk = preview.dataset.ok === "true" && pending.length > 0;
    returnsNeeded = Number(preview.dataset.returnsNeeded || 0);
    // Keep only as many returns as are needed now.
    for (const tile of Array.from(returns).slice(returnsNeeded)) returns.delete(tile);
    writeReturns();
    renderReturnsPicker();
    refreshButtons();
  }

  /** Red devils in sans marque: pick which remaining tiles go back (R-PLACE-7). */
  function renderReturnsPicker() {
    const picker = $("#returns-picker");
    if (!picker) return;
    picker.hidden = returnsNeeded === 0;
    const box = $(".picker-tiles", picker);
    // Every preview rebuilds the choices: a keyboard user keeps the focus on the same tile.
    const focused = box.contains(document.activeElement) ? choiceTiles.get(document.activeElement) : null;
    box.replaceChildren();
    choiceTiles = new Map();
    if (returnsNeeded === 0) return;
    for (const tile of freeTiles()) {
      const button = tile.cloneNode(true);
      button.classList.remove("hand-tile");
      button.classList.add("return-choice");
      button.setAttribute("aria-pressed", String(returns.has(tile)));
      button.addEventListener("click", () => {
        if (returns.has(tile)) returns.delete(tile);
        else if (returns.size < returnsNeeded) returns.add(tile);
        button.setAttribute("aria-pressed", String(returns.has(tile)));
        writeReturns();
        // The returns are part of the move: the server judges them too before Play is offered.
        previewOk = false;
        refreshButtons();
        if (previewTrigger && window.htmx) window.htmx.trigger(previewTrigger, "preview-move");
      });
      choiceTiles.set(button, tile);
      box.append(button);
      if (tile === focused) button.focus();
    }
  }

  /* ---------------------------------------------------------- the hint */

  /** "Place on the board": the hint's tiles from the hand onto its squares, as if the
   * player had placed them (a diable with its letter, the red-devil returns chosen),
   * then the usual preview. The player still presses Play. */
  function placeHint(event) {
    const button = event.currentTarget;
    if (!canPlace()) return;
    if (layOut((button.dataset.placements || "").split(",").filter(Boolean), button.dataset.returns || "")) {
      announce(t(button, "tPlaced"));
    } else {
      announce(t(button, "tMissing"));
    }
  }

  /** Lay ``wanted`` ("H8=C", lower case a diable) from the hand onto the board, with the
   * red-devil ``returnLetters`` chosen, as if the player had placed them; then the usual
   * preview. False, with nothing placed, when the hand or the board no longer allow it. */
  function layOut(wanted, returnLetters) {
    clearMove();
    const used = new Set();
    const take = (letter) => {
      const tile = freeTiles().find((x) => !used.has(x) && x.dataset.letter === letter);
      if (tile) used.add(tile);
      return tile;
    };
    const placed = [];
    for (const item of wanted) {
      const [name, letter] = item.split("=");
      const sq = squares.get(name);
      const diable = letter !== letter.toUpperCase();
      const tile = take(diable ? DIABLE : letter);
      if (!sq || !tile || !isFree(sq)) return false;
      placed.push({ square: sq, letter: letter.toUpperCase(), diable, tile });
    }
    const chosen = [];
    for (const letter of returnLetters) {
      const tile = take(letter);
      if (!tile) return false;
      chosen.push(tile);
    }
    for (const entry of placed) {
      pending.push(entry);
      entry.tile.classList.add("is-placed");
    }
    returns = new Set(chosen);
    changed();
    return true;
  }

  /** The player's queued move (#game-area's data-queued: their own, never another's),
   * laid out again on the board: to change it and queue it again, or, when it was not
   * played, to play it now as it is or adjusted. */
  function layOutQueued() {
    const queued = area.dataset.queued;
    if (queued && canPlace()) layOut(queued.split(",").filter(Boolean), area.dataset.queuedReturns || "");
  }

  /* ---------------------------------------------------------- exchange */

  function setMode(next) {
    mode = next;
    exchange.clear();
    if (mode === "exchange") clearMove();
    for (const tile of handTiles()) tile.setAttribute("aria-pressed", "false");
    const panel = $("#exchange-panel");
    if (panel) panel.hidden = mode !== "exchange";
    if (hand) hand.classList.toggle("is-exchanging", mode === "exchange");
    writeExchange();
  }

  function writeExchange() {
    const input = $("#move-exchange");
    if (input) input.value = Array.from(exchange).map((tile) => tile.dataset.letter).join("");
    refreshButtons();
  }

  /* ---------------------------------------------------------- events */

  function onHandClick(event) {
    const tile = event.target.closest(".hand-tile");
    if (!tile || performance.now() < suppressClickUntil) return;
    if (mode === "exchange") {
      if (exchange.has(tile)) exchange.delete(tile);
      else exchange.add(tile);
      tile.setAttribute("aria-pressed", String(exchange.has(tile)));
      return writeExchange();
    }
    if (!canPlace()) return;
    if (tile.classList.contains("is-placed")) {
      const entry = pending.find((p) => p.tile === tile);
      if (entry) takeBack(entry.square);
      return;
    }
    select(tile);
  }

  function onBoardClick(event) {
    const sq = event.target.closest(".sq");
    if (!sq || !squares.has(sq.dataset.square)) return;
    focusSquare(sq);
    if (!canPlace()) return;
    if (pendingAt(sq)) return takeBack(sq);
    if (selected && isFree(sq)) return place(selected, sq);
    if (isFree(sq)) setCursor(sq);
  }

  function onBoardKey(event) {
    const sq = event.target.closest(".sq");
    if (!sq) return;
    const [col, row] = coords(sq);
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[event.key]) {
      event.preventDefault();
      const [dc, dr] = moves[event.key];
      focusSquare(squareAt(col + dc, row + dr) || sq);
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      focusSquare(squareAt(event.key === "Home" ? 0 : width - 1, row));
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (!canPlace()) return;
      if (selected && isFree(sq)) return place(selected, sq);
      if (event.key === "Enter" && typed > 0 && pending.length) return confirmFlow();
      if (pendingAt(sq)) return takeBack(sq);
      setCursor(sq);
    } else if (event.key === "/") {
      event.preventDefault();
      toggleDirection();
    } else if (event.key === "Backspace") {
      event.preventDefault();
      const last = pending[pending.length - 1];
      if (last) {
        takeBack(last.square);
        typed = Math.max(0, typed - 1);
        focusSquare(last.square);
      }
    } else if (event.key === "Delete") {
      event.preventDefault();
      takeBack(sq);
    } else if (event.key === "Escape") {
      clearMove();
    } else if (/^[a-z]$/i.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      if (!cursor) setCursor(sq);
      // In order: a letter typed while the joker's letter is asked waits for that tile.
      const key = event.key;
      typing = typing.then(() => typeLetter(key)).catch((error) => console.error(error));
    }
  }

  /** Enter after typing: go to the Play button, a second Enter sends the move;
   * to the tiles to give back first while red devils are owed some. */
  function confirmFlow() {
    const play = playButton();
    const choice = returns.size < returnsNeeded ? $("#returns-picker .return-choice") : null;
    if (choice) {
      choice.focus();
      announce($("#returns-title")?.textContent.trim());
    } else if (play && !play.disabled) {
      play.focus();
      announce(t(announcer, "tPlay"));
    } else {
      const preview = $("#preview");
      if (preview) announce(preview.textContent.trim());
    }
  }

  /* -------------------------------------------- drag and drop (Pointer events) */

  let drag = null;

  function onPointerDown(event) {
    const tile = event.target.closest(".hand-tile");
    if (!tile || !canPlace() || event.button !== 0 || tile.classList.contains("is-placed")) return;
    drag = { tile, id: event.pointerId, x: event.clientX, y: event.clientY, ghost: null, over: null };
  }

  // A finger's drag: its touch moves are cancelled too. Else Chromium takes a quick drag
  // for a fling, which touch-action: none stops scrolling the page but not from eating
  // the next tap (on Play, say) as the tap that stops that fling.
  function onTouchMove(event) {
    if (drag) event.preventDefault();
  }

  function onPointerMove(event) {
    if (!drag || event.pointerId !== drag.id) return;
    if (!drag.ghost) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 8) return;
      drag.ghost = drag.tile.cloneNode(true);
      drag.ghost.classList.add("drag-ghost");
      drag.ghost.removeAttribute("id");
      document.body.append(drag.ghost);
      drag.tile.classList.add("is-dragging");
    }
    event.preventDefault();
    drag.ghost.style.transform = `translate(${event.clientX}px, ${event.clientY}px) translate(-50%, -60%)`;
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const sq = under && under.closest(".sq");
    const target = sq && squares.has(sq.dataset.square) && isFree(sq) ? sq : null;
    if (drag.over !== target) {
      if (drag.over) drag.over.classList.remove("is-drop-target");
      if (target) target.classList.add("is-drop-target");
      drag.over = target;
    }
  }

  function onPointerUp(event) {
    if (!drag || event.pointerId !== drag.id) return;
    const { tile, ghost, over } = drag;
    drag = null;
    if (!ghost) return; // a plain tap: the click handler deals with it
    ghost.remove();
    tile.classList.remove("is-dragging");
    suppressClickUntil = performance.now() + 400;
    if (over && event.type === "pointerup") {
      over.classList.remove("is-drop-target");
      focusSquare(over, false);
      place(tile, over);
    } else if (over) {
      over.classList.remove("is-drop-target");
    }
  }

  /** The unseen tiles' letters (#unseen-details): open beside the board on a wide screen,
   * folded on a phone, where they would push the moves out of sight; then as the player left them. */
  function initUnseen() {
    const details = $("#unseen-details");
    if (!details) return;
    details.open = unseenOpen ?? wide.matches;
    details.addEventListener("toggle", () => {
      unseenOpen = details.open;
    });
  }

  /* ---------------------------------------------------------- replay */

  /* The replay's steps come from the server once, at the first step asked
   * (games/player_replay.py: the viewer's own hand only, every final hand once
   * the game is over), up to the version this page shows. The live board is
   * kept aside while the replay shows an earlier move and put back at the
   * last one. On a running game the board takes no tile meanwhile (the tiles
   * laid are taken back first); a new move, brought by the poll, rebuilds the
   * whole area, which closes the replay on the new position. The keys (arrows,
   * Home, End) act only while the focus is in the replay's group: the board's
   * own arrows move between its squares. */

  function initReplay() {
    const box = $("#replay");
    if (!box) return;
    const valuesEl = $("#letter-values");
    const values = valuesEl ? JSON.parse(valuesEl.textContent) : {};
    const status = $(".replay-status", box);
    const detail = $("#replay-detail", box);
    let data = null;
    let loading = null;
    let total = Number(box.dataset.total) || 0;
    let step = total;
    let live = null; // the live board's squares, kept while an earlier move is shown

    function setStatus() {
      status.textContent = t(status, "tStep", { step, total });
      const atStart = step === 0;
      const atEnd = step === total;
      // aria-disabled, not disabled: the focused button keeps the focus (and the keys) at either end.
      for (const name of ["first", "prev"]) $(`[data-replay="${name}"]`, box).setAttribute("aria-disabled", String(atStart));
      for (const name of ["next", "last"]) $(`[data-replay="${name}"]`, box).setAttribute("aria-disabled", String(atEnd));
    }

    function load() {
      if (!loading) {
        loading = fetch(box.dataset.url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
          .then(async (response) => {
            // A refusal says why in the page's language ({"error": …}); else the page's own words.
            const answer = await response.json().catch(() => ({}));
            if (!response.ok) throw new Error(answer.error || "");
            return answer;
          })
          .then((json) => {
            data = json;
            total = data.total;
            return data;
          })
          .catch((error) => {
            loading = null; // the next press tries again
            status.textContent = error.message || t(box, "tError");
            throw error;
          });
      }
      return loading;
    }

    function keepLive() {
      if (live) return;
      if (pending.length) clearMove();
      select(null);
      live = new Map(
        Array.from(squares, ([name, sq]) => [name, { html: sq.innerHTML, cls: sq.className, label: sq.getAttribute("aria-label"), letter: sq.dataset.letter }]),
      );
      replaying = true;
      $("#board-wrap")?.classList.add("is-replaying");
    }

    function restoreLive() {
      if (!live) return;
      for (const [name, saved] of live) {
        const sq = squares.get(name);
        sq.innerHTML = saved.html;
        sq.className = saved.cls;
        sq.setAttribute("aria-label", saved.label);
        if (saved.letter === undefined) delete sq.dataset.letter;
        else sq.dataset.letter = saved.letter;
      }
      live = null;
      replaying = false;
      $("#board-wrap")?.classList.remove("is-replaying");
    }

    function drawBoard() {
      for (const sq of squares.values()) {
        $$(".board-tile", sq).forEach((el) => el.remove());
        sq.classList.remove("has-tile", "last-move", "has-pending");
        delete sq.dataset.letter;
        sq.setAttribute("aria-label", emptyLabel(sq));
      }
      data.steps.slice(1, step + 1).forEach((played, i) => {
        const last = i === step - 1;
        for (const [name, letter, diable] of played.place) {
          const sq = squares.get(name);
          if (!sq) continue;
          sq.append(tileMarkup(letter, values[letter], diable));
          sq.classList.add("has-tile");
          sq.classList.toggle("last-move", last);
          sq.dataset.letter = letter;
          sq.setAttribute("aria-label", tileLabel(sq, letter, values[letter], diable, last ? t(board, "tLast") : ""));
        }
      });
    }

    function fillList(list, items) {
      list.replaceChildren(
        ...items.map((text) => {
          const li = document.createElement("li");
          li.textContent = text;
          return li;
        }),
      );
    }

    function drawDetail() {
      const shown = data.steps[step];
      const move = shown.move;
      $("#replay-move", box).textContent = move
        ? `${t(box, "tMove", { player: move.player, notation: move.notation })} (${pointsLabel(move.points)})`
        : t(box, "tDeal");
      const words = $("#replay-words", box);
      words.textContent = move && move.words.length ? t(box, "tWords", { words: move.words.join(", ") }) : "";
      words.hidden = !words.textContent;
      fillList(
        $("#replay-scores", box),
        data.players.map((player, k) => t(box, "tScore", { player, score: shown.scores[k] })),
      );
      const ownHand = $("#replay-hand", box);
      if (ownHand) ownHand.textContent = (shown.hand || "").split("").join(" ");
      const final = $("#replay-final", box);
      if (final) final.hidden = !shown.hands?.length;
      if (final && shown.hands?.length) {
        fillList(
          $("#replay-hands", box),
          data.players.map((player, k) => t(box, "tScore", { player, score: shown.hands[k].split("").join(" ") || "—" })),
        );
      }
      detail.hidden = false;
    }

    async function show(k) {
      try {
        await load();
      } catch {
        return;
      }
      if (!area.contains(box)) return; // the area was rebuilt meanwhile
      step = Math.max(0, Math.min(total, k));
      if (step === total) restoreLive();
      else {
        keepLive();
        drawBoard();
      }
      drawDetail();
      setStatus();
    }

    box.addEventListener("click", (event) => {
      const button = event.target.closest("[data-replay]");
      if (!button) return;
      const jump = { first: 0, prev: step - 1, next: step + 1, last: total };
      show(jump[button.dataset.replay]);
    });
    box.addEventListener("keydown", (event) => {
      const keys = { ArrowLeft: step - 1, ArrowUp: step - 1, ArrowRight: step + 1, ArrowDown: step + 1, Home: 0, End: total };
      if (!(event.key in keys) || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      show(keys[event.key]);
    });
    setStatus();
  }

  /* ------------------------------------------------- the order of the hand */

  /* The tiles are buttons moved from slot to slot: a tile placed on the board,
   * chosen for an exchange or selected keeps its state wherever it goes. The
   * server draws the hand in the player's order (games.presenters.sorted_hand);
   * the "Sort" list changes it here at once and saves it on the player's
   * account; Shuffle sets it back to "unsorted". */

  /** Put ``tiles`` in the hand's slots, first to last. */
  function fillSlots(tiles) {
    const slots = $$(".hand-slot", hand);
    tiles.forEach((tile, i) => slots[i].append(tile));
  }

  /** The comparison of sorted_hand (games/presenters.py): diables first or last,
   * then the most points first (by value), then A to Z, then the dealt order. */
  function handOrderKey(order) {
    const byValue = order.startsWith("value-");
    const diablesFirst = order.endsWith("-diables-first");
    const rank = (tile) => ((tile.dataset.letter === DIABLE) !== diablesFirst ? 1 : 0);
    const letter = (a, b) => (a.dataset.letter < b.dataset.letter ? -1 : a.dataset.letter > b.dataset.letter ? 1 : 0);
    return (a, b) => rank(a) - rank(b)
      || (byValue ? Number(b.dataset.value) - Number(a.dataset.value) : 0)
      || letter(a, b)
      || Number(a.dataset.index) - Number(b.dataset.index);
  }

  /** Lay the hand out in ``order``; "unsorted" is the dealt order, each tile in its own
   * slot when the slots are numbered (avec marque), as the server draws it. */
  function arrangeHand(order) {
    if (!hand) return;
    const tiles = handTiles();
    if (order !== "unsorted") return fillSlots(tiles.sort(handOrderKey(order)));
    const slots = $$(".hand-slot", hand);
    const numbered = hand.classList.contains("hand-slots");
    tiles.sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index));
    tiles.forEach((tile, i) => slots[numbered ? Number(tile.dataset.index) : i]?.append(tile));
  }

  /** Save the order on the player's account: one request at a time, the latest choice
   * last (arrow keys on the list change it at each step). A refusal is shown under the list. */
  let saving = false;
  let orderToSave = null;
  async function saveHandOrder(order) {
    const sortForm = $("#hand-sort-form");
    if (!sortForm || sortForm.dataset.save !== "true") return;
    orderToSave = order;
    if (saving) return;
    saving = true;
    while (orderToSave !== null) {
      const body = new FormData($("#hand-sort-form") || sortForm);
      body.set("hand_order", orderToSave);
      orderToSave = null;
      let message = "";
      try {
        const answer = await fetch(sortForm.action, { method: "POST", body, credentials: "same-origin" });
        if (answer.status !== 204) {
          const plain = (answer.headers.get("Content-Type") || "").startsWith("text/plain");
          message = (plain && (await answer.text()).trim()) || t(sortForm, "tFailed");
        }
      } catch (error) {
        message = t(sortForm, "tFailed");
      }
      const shown = $("#hand-sort-message");
      if (shown) shown.textContent = message;
    }
    saving = false;
  }

  function onSortChange(event) {
    handOrder = event.currentTarget.value;
    arrangeHand(handOrder);
    saveHandOrder(handOrder);
  }

  /** Shuffle: a new order the player sees; the list says "Unsorted" until they sort again. */
  function shuffleHand() {
    const tiles = handTiles();
    for (let i = tiles.length - 1; i > 0; i -= 1) {
      const j = Math.floor(Math.random() * (i + 1));
      [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
    }
    fillSlots(tiles);
    const select = $("#hand-sort");
    if (select && handOrder !== "unsorted") {
      handOrder = select.value = "unsorted";
      saveHandOrder(handOrder);
    }
  }

  /** A new #game-area comes drawn in the order saved when it was built: the order chosen
   * on this page since (a save still on its way) wins. */
  function keepHandOrder() {
    const select = $("#hand-sort");
    if (!select) return;
    if (handOrder === null) handOrder = select.value;
    else if (select.value !== handOrder) {
      select.value = handOrder;
      arrangeHand(handOrder);
    }
  }

  /* ---------------------------------------------------------- setup */

  function init() {
    area = $("#game-area");
    board = $("#board");
    if (!area || !board) return;
    hand = $("#hand");
    // The player's turn: #move-form; another's: #queue-form, whose button queues the move.
    form = $("#move-form") || $("#queue-form");
    previewTrigger = $("#preview-trigger");
    announcer = $("#board-announcer");
    myTurn = area.dataset.myTurn === "true";
    canQueue = area.dataset.canQueue === "true";
    pending = [];
    selected = cursor = null;
    typed = 0;
    mode = "place";
    exchange = new Set();
    returns = new Set();
    returnsNeeded = 0;
    previewOk = false;
    replaying = false;
    const preview = $("#preview");
    emptyPreview = preview ? preview.outerHTML : "";

    squares = new Map($$(".sq[data-square]", board).map((sq) => [sq.dataset.square, sq]));
    width = Number(board.style.getPropertyValue("--cols")) || $$(".col-head", board).length;
    height = $$(".board-row", board).length - 1;
    focusSquare(
      squares.get(lastSquare) || squares.get($(".sq-start", board)?.dataset.square) || squares.values().next().value,
      false,
    );

    board.addEventListener("click", onBoardClick);
    board.addEventListener("keydown", onBoardKey);
    if (hand) {
      hand.addEventListener("click", onHandClick);
      hand.addEventListener("pointerdown", onPointerDown);
      hand.addEventListener("touchmove", onTouchMove, { passive: false });
    }
    $("#hint-place")?.addEventListener("click", placeHint);
    $("#shuffle-hand")?.addEventListener("click", shuffleHand);
    $("#hand-sort")?.addEventListener("change", onSortChange);
    keepHandOrder();
    $("#recall-tiles")?.addEventListener("click", clearMove);
    $("#direction-toggle")?.addEventListener("click", toggleDirection);
    $("#exchange-button")?.addEventListener("click", () => setMode(mode === "exchange" ? "place" : "exchange"));
    $("#exchange-cancel")?.addEventListener("click", () => setMode("place"));
    $("#zoom-board")?.addEventListener("click", (event) => {
      const zoomed = $("#board-wrap").classList.toggle("is-zoomed");
      event.currentTarget.setAttribute("aria-pressed", String(zoomed));
    });
    initUnseen();
    initReplay();
    refreshButtons();
    // Tiles kept through a poll are put back, unless they were just the queued move laid
    // out (unchanged): then the queued move as it is now is laid out (or nothing, played).
    const kept = rebuilt ? rebuilt.kept : [];
    const asQueued = rebuilt && rebuilt.queued && asPlacements(kept) === rebuilt.queued;
    if (kept.length && !asQueued) putBack(kept);
    else layOutQueued();
    if (rebuilt) reopen(rebuilt.opened);
    if (rebuilt) afterRebuild(rebuilt.focus, rebuilt.turn);
    rebuilt = null;
  }

  /* An open page polls (the #game-area's hx-get): the player to move learns of a
   * resignation, a day given or a chat message while placing tiles. The new area
   * comes without them; put them back on their squares, with the same letters of
   * the new hand, and say which came back to the hand because a square was taken
   * meanwhile (or the hand no longer has the letter). A move of one's own (a POST)
   * starts afresh. */
  function keptPlacements() {
    return pending.map((p) => ({ square: p.square.dataset.square, letter: p.letter, diable: p.diable }));
  }

  /** Kept placements in the move form's format, as data-queued writes them. */
  const asPlacements = (kept) => kept.map((p) => `${p.square}=${p.diable ? p.letter.toLowerCase() : p.letter}`).join(",");

  function putBack(kept) {
    if (!kept || !kept.length || !canPlace()) return;
    const back = [];
    for (const p of kept) {
      const sq = squares.get(p.square);
      const tile = freeTiles().find((x) => x.dataset.letter === (p.diable ? DIABLE : p.letter));
      if (sq && tile && isFree(sq)) {
        pending.push({ square: sq, letter: p.letter, diable: p.diable, tile });
        tile.classList.add("is-placed");
      } else {
        back.push(`${p.diable ? p.letter.toLowerCase() : p.letter} (${p.square})`);
      }
    }
    if (pending.length) changed();
    const note = $("#tiles-returned");
    if (back.length && note) note.textContent = t(note, "tReturned", { tiles: back.join(", ") });
  }

  /* A move (one's own or, while waiting, another player's) rebuilds #game-area.
   * Whoever had the focus in it would otherwise land at the top of the page, and
   * a keyboard user would have to Tab back through the site's links: keep the
   * focus on the same control (by id, by square, or by its place among the
   * area's controls) if it can still take it, else on the board's square last
   * used. The button that sent the move (Play, Pass, the exchange) gives the
   * focus back to the board: against the computer, whose reply comes with the
   * answer, the new area has a Play button again, disabled, which cannot take
   * the focus (it went to <body>). And say whose turn it is now. */
  const focusables = () => $$("a[href], button, input, select, textarea, summary, [tabindex='0']", area);

  /** Whether ``el`` can take the focus: enabled, shown, not inside a closed <details>. */
  const canFocus = (el) => Boolean(el) && !el.disabled && el.getClientRects().length > 0;

  function rememberFocus() {
    const active = document.activeElement;
    if (!area || !active || active === document.body || !area.contains(active)) return null;
    if (form && active.form === form && active.type === "submit") return { board: true };
    return {
      id: active.id,
      square: active.dataset.square || null,
      index: focusables().indexOf(active),
      kind: active.tagName + "." + active.className,
    };
  }

  /* A confirmation the player opened (Resign, Pass) stays open through a poll: the new
   * area would bring it closed, under the finger about to press "Yes". Each box is known
   * by its form's address and its summary's words, the same in the new area. */
  function boxKey(box) {
    const form = box.closest("form");
    return `${form ? form.getAttribute("action") : ""}|${box.querySelector("summary")?.textContent.trim()}`;
  }

  function openedBoxes() {
    return area ? [...area.querySelectorAll("details[open]")].map(boxKey) : [];
  }

  function reopen(keys) {
    if (!keys || !keys.length) return;
    for (const box of area.querySelectorAll("details")) {
      if (keys.includes(boxKey(box))) box.open = true;
    }
  }

  function afterRebuild(focus, turn) {
    // A page may name what to read instead (data-announce: the guided game's step news).
    // A poll that changed neither the turn nor the end (a chat message, a day given)
    // says nothing: "Your turn." again at every chat message would only be noise.
    const status = $("[data-announce], .turn-banner, #game-over-title", area);
    const same = turn && turn === area.dataset.myTurn + area.dataset.over;
    if (status && !same) announce(status.textContent.trim());
    if (!focus) return;
    const alike = focusables()[focus.index];
    const byId = focus.id ? document.getElementById(focus.id) : null;
    const target = [
      byId,
      focus.square && squares.get(focus.square),
      alike && !alike.dataset.square && alike.tagName + "." + alike.className === focus.kind ? alike : null,
    ].find((el) => !focus.board && canFocus(el)) || $('.sq[tabindex="0"]', board);
    if (target && target.dataset.square) focusSquare(target, false);
    if (target) target.focus({ preventScroll: true });
  }

  // Drags are followed on the whole document: the pointer leaves the hand.
  document.addEventListener("pointermove", onPointerMove, { passive: false });
  document.addEventListener("pointerup", onPointerUp);
  document.addEventListener("pointercancel", onPointerUp);

  // htmx:load fires on every piece of content htmx adds: a new game area
  // (after a move or a poll) needs a fresh start, a new preview an update.
  document.addEventListener("htmx:load", (event) => {
    const elt = event.target;
    if (elt.id === "game-area") init();
    else if (elt.id === "preview") onPreview(elt);
  });

  // A refused move or resignation comes back as the small #move-error fragment
  // (status 400/403/409) instead of a new #game-area: show it in place rather
  // than letting hx-select="#game-area" empty the page, and keep the pending tiles.
  document.addEventListener("htmx:beforeSwap", (event) => {
    const detail = event.detail;
    if (!detail.target || detail.target.id !== "game-area") return;
    const text = detail.xhr ? detail.xhr.responseText || "" : "";
    if (detail.xhr && detail.xhr.status === 204) return;
    if (text.includes('id="game-area"')) return;
    const slot = document.getElementById("move-error");
    if (!slot || !text.includes('id="move-error"')) {
      detail.shouldSwap = false;
      return;
    }
    detail.shouldSwap = true;
    detail.isError = false;
    detail.target = slot;
    detail.swapOverride = "outerHTML";
    detail.selectOverride = "#move-error";
  });

  // Registered after the handler above, so it sees where the swap really goes.
  // A poll (a GET) keeps the tiles being placed and says nothing if the turn is the same.
  document.addEventListener("htmx:beforeSwap", (event) => {
    const detail = event.detail;
    if (detail.shouldSwap && detail.target && detail.target.id === "game-area") {
      const poll = detail.requestConfig && detail.requestConfig.verb === "get";
      rebuilt = {
        focus: rememberFocus(),
        kept: poll ? keptPlacements() : [],
        opened: poll ? openedBoxes() : [],
        turn: poll && area ? area.dataset.myTurn + area.dataset.over : null,
        queued: area ? area.dataset.queued || "" : "",
      };
    }
  });

  // Before htmx walks a replaced #game-area, empty its parts with no hx- (docs/PERFORMANCE.md 5).
  document.addEventListener("htmx:beforeCleanupElement", (event) => {
    const old = event.target;
    if (old.id !== "game-area" || document.getElementById("game-area") === old) return;
    for (const part of old.querySelectorAll("#board, .move-list, .unseen-letters")) part.replaceChildren();
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
