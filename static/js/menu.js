// The site menu folds on a narrow screen and stays open on a wide one (templates/base.html).
(() => {
  // The site menu folds on a narrow screen and stays open on a wide one; the account
  // menu inside it the other way round. Open where it folds, a menu lies over the
  // page: Escape folds it back, and so does the focus or a tap going anywhere else,
  // or the keyboard would walk the links hidden under it.
  const narrow = window.matchMedia("(max-width: 800px)");
  const site = document.getElementById("site-menu");
  const account = document.getElementById("account-menu");
  const fit = () => {
    site.open = !narrow.matches;
    if (account) account.open = narrow.matches;
  };
  const foldable = (menu, folds) => {
    const fold = () => { if (folds() && menu.open) menu.open = false; };
    menu.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && folds() && menu.open) {
        fold();
        menu.querySelector("summary").focus();
      }
    });
    // Only when the focus goes to something else on the page: not when the window
    // itself loses it (another app), nor on a tap on nothing, which the click sees.
    menu.addEventListener("focusout", (event) => {
      if (event.relatedTarget && !menu.contains(event.relatedTarget)) fold();
    });
    document.addEventListener("click", (event) => {
      if (!menu.contains(event.target)) fold();
    });
  };
  document.documentElement.classList.add("js");
  fit();
  narrow.addEventListener("change", fit);
  foldable(site, () => narrow.matches);
  if (account) foldable(account, () => !narrow.matches);
})();
