// The tab of a game says whose turn it is: its title ("(Your turn) Game 12 · Diamino") and
// its icon (a red dot) follow the game area every time htmx swaps it in — a waiting page's
// poll that brings the other player's move, or the player's own move — so a player who
// keeps the game in a background tab sees the turn come round, as on Lichess.
(() => {
  const follow = () => {
    const area = document.getElementById("game-area");
    if (!area) return;
    if (area.dataset.tabTitle && document.title !== area.dataset.tabTitle) {
      document.title = area.dataset.tabTitle;
    }
    const icon = document.getElementById("favicon");
    if (icon && area.dataset.favicon && icon.getAttribute("href") !== area.dataset.favicon) {
      icon.setAttribute("href", area.dataset.favicon);
    }
  };
  document.addEventListener("htmx:afterSettle", follow);
})();
