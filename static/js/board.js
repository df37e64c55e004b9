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
  let emptyPreview = "";
  let suppressClickUntil = 0;
  let rebuilt = null; // set when htmx replaces #game-area: {focus} where the focus was

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
    span.className = `tile board-tile${diable ? " is-diable" : ""}${extraClass ? ` ${extraClass}` : ""}`;
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
    for (const other of squares.values()) other.tabIndex = -1;
    sq.tabIndex = 0;
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

  function canPlace() {
    return myTurn && mode === "place" && form;
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
    const play = $("#play-button");
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
    clearMove();
    const wanted = (button.dataset.placements || "").split(",").filter(Boolean);
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
      if (!sq || !tile || !isFree(sq)) {
        announce(t(button, "tMissing"));
        return;
      }
      placed.push({ square: sq, letter: letter.toUpperCase(), diable, tile });
    }
    const chosen = [];
    for (const letter of button.dataset.returns || "") {
      const tile = take(letter);
      if (!tile) {
        announce(t(button, "tMissing"));
        return;
      }
      chosen.push(tile);
    }
    for (const entry of placed) {
      pending.push(entry);
      entry.tile.classList.add("is-placed");
    }
    returns = new Set(chosen);
    changed();
    announce(t(button, "tPlaced"));
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
    const play = $("#play-button");
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

  /* ---------------------------------------------------------- replay */

  function initReplay() {
    const data = $("#replay-data");
    const box = $("#replay");
    if (!data || !box) return;
    const steps = JSON.parse(data.textContent);
    const valuesEl = $("#letter-values");
    const values = valuesEl ? JSON.parse(valuesEl.textContent) : {};
    const status = $(".replay-status", box);
    let step = steps.length;

    function show(k) {
      step = Math.max(0, Math.min(steps.length, k));
      for (const sq of squares.values()) {
        $$(".board-tile", sq).forEach((el) => el.remove());
        sq.classList.remove("has-tile", "last-move");
        delete sq.dataset.letter;
        sq.setAttribute("aria-label", emptyLabel(sq));
      }
      steps.slice(0, step).forEach((placements, i) => {
        for (const [name, letter, diable] of placements) {
          const sq = squares.get(name);
          if (!sq) continue;
          const last = i === step - 1;
          const shown = letter.toUpperCase();
          sq.append(tileMarkup(shown, values[shown], diable));
          sq.classList.add("has-tile");
          sq.classList.toggle("last-move", last);
          sq.dataset.letter = shown;
          sq.setAttribute("aria-label", tileLabel(sq, shown, values[shown], diable, last ? t(board, "tLast") : ""));
        }
      });
      status.textContent = t(status, "tStep", { step, total: steps.length });
      $('[data-replay="first"]', box).disabled = $('[data-replay="prev"]', box).disabled = step === 0;
      $('[data-replay="last"]', box).disabled = $('[data-replay="next"]', box).disabled = step === steps.length;
    }

    box.addEventListener("click", (event) => {
      const button = event.target.closest("[data-replay]");
      if (!button) return;
      const jump = { first: 0, prev: step - 1, next: step + 1, last: steps.length };
      show(jump[button.dataset.replay]);
    });
    show(step);
  }

  /* ---------------------------------------------------------- setup */

  function shuffleHand() {
    const tiles = handTiles();
    for (let i = tiles.length - 1; i > 0; i -= 1) {
      const j = Math.floor(Math.random() * (i + 1));
      [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
    }
    const slots = $$(".hand-slot", hand);
    tiles.forEach((tile, i) => slots[i].append(tile));
  }

  function init() {
    area = $("#game-area");
    board = $("#board");
    if (!area || !board) return;
    hand = $("#hand");
    form = $("#move-form");
    previewTrigger = $("#preview-trigger");
    announcer = $("#board-announcer");
    myTurn = area.dataset.myTurn === "true";
    pending = [];
    selected = cursor = null;
    typed = 0;
    mode = "place";
    exchange = new Set();
    returns = new Set();
    returnsNeeded = 0;
    previewOk = false;
    const preview = $("#preview");
    emptyPreview = preview ? preview.outerHTML : "";

    squares = new Map($$(".sq[data-square]", board).map((sq) => [sq.dataset.square, sq]));
    width = Number(getComputedStyle(board).getPropertyValue("--cols")) || $$(".col-head", board).length;
    height = $$(".board-row", board).length - 1;
    focusSquare(squares.get($(".sq-start", board)?.dataset.square) || squares.values().next().value, false);

    board.addEventListener("click", onBoardClick);
    board.addEventListener("keydown", onBoardKey);
    if (hand) {
      hand.addEventListener("click", onHandClick);
      hand.addEventListener("pointerdown", onPointerDown);
      hand.addEventListener("touchmove", onTouchMove, { passive: false });
    }
    $("#hint-place")?.addEventListener("click", placeHint);
    $("#shuffle-hand")?.addEventListener("click", shuffleHand);
    $("#recall-tiles")?.addEventListener("click", clearMove);
    $("#direction-toggle")?.addEventListener("click", toggleDirection);
    $("#exchange-button")?.addEventListener("click", () => setMode(mode === "exchange" ? "place" : "exchange"));
    $("#exchange-cancel")?.addEventListener("click", () => setMode("place"));
    $("#zoom-board")?.addEventListener("click", (event) => {
      const zoomed = $("#board-wrap").classList.toggle("is-zoomed");
      event.currentTarget.setAttribute("aria-pressed", String(zoomed));
    });
    initReplay();
    refreshButtons();
    if (rebuilt) afterRebuild(rebuilt.focus);
    rebuilt = null;
  }

  /* A move (one's own or, while waiting, another player's) rebuilds #game-area.
   * Whoever had the focus in it would otherwise land at the top of the page, and
   * a keyboard user would have to Tab back through the site's links: keep the
   * focus on the same control (by id, by square, or by its place among the
   * area's controls), else on the board. And say whose turn it is now. */
  const focusables = () => $$("a[href], button, input, select, textarea, summary, [tabindex='0']", area);

  function rememberFocus() {
    const active = document.activeElement;
    if (!area || !active || active === document.body || !area.contains(active)) return null;
    return {
      id: active.id,
      square: active.dataset.square || null,
      index: focusables().indexOf(active),
      kind: active.tagName + "." + active.className,
    };
  }

  function afterRebuild(focus) {
    // A page may name what to read instead (data-announce: the guided game's step news).
    const status = $("[data-announce], .turn-banner, #game-over-title", area);
    if (status) announce(status.textContent.trim());
    if (!focus) return;
    const same = focusables()[focus.index];
    const target = (focus.id && document.getElementById(focus.id))
      || (focus.square && squares.get(focus.square))
      || (same && !same.dataset.square && same.tagName + "." + same.className === focus.kind ? same : null)
      || $('.sq[tabindex="0"]', board);
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
  document.addEventListener("htmx:beforeSwap", (event) => {
    const detail = event.detail;
    if (detail.shouldSwap && detail.target && detail.target.id === "game-area") {
      rebuilt = { focus: rememberFocus() };
    }
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
