/* Diamino — the guided first game (templates/learn/guided.html).
 *
 * board.js plays the board as in a real game. This only brings the step's news
 * (what the last move did, what to do next) back into view after a move: on a
 * phone it sits above the board, scrolled away while the player was at Play.
 * The focus stays where board.js keeps it; board.js reads the news aloud.
 */
(() => {
  "use strict";

  document.addEventListener("htmx:load", (event) => {
    if (event.target.id !== "game-area") return;
    const news = document.querySelector(".guided-news");
    if (news && news.getBoundingClientRect().top < 0) news.scrollIntoView({ block: "start" });
  });
})();
