"""Draw the installed app's PNG icons from static/favicon.svg, once, with Chromium.

The web app manifest (diamino_site/pwa.py) needs PNG icons — 192 and 512
pixels, and a "maskable" 512 that the phone may crop to a circle or a squircle
— and the project has no image library to draw them at request time. This
script draws them with the Chromium the browser tests already use (Playwright,
/usr/bin/chromium), and the PNGs are committed. Run it again only when the
favicon changes::

    .venv/bin/python tools/make_icons.py

The maskable icon puts the tile inside the central 60 % of a square in the
site's green: the "safe zone" a mask never cuts into is the circle of 80 %
(https://www.w3.org/TR/appmanifest/#icon-masks).
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
SVG = (ROOT / "static" / "favicon.svg").read_text()
OUT = ROOT / "static" / "icons"
CHROMIUM = "/usr/bin/chromium"
BRAND = "#1d6b48"  # --brand in static/css/site.css, the manifest's theme colour

# name: (size in pixels, background, share of the square the tile covers)
ICONS = {
    "icon-192.png": (192, "transparent", 1.0),
    "icon-512.png": (512, "transparent", 1.0),
    "icon-maskable-512.png": (512, BRAND, 0.6),
}


def page_html(size: int, background: str, share: float) -> str:
    tile = round(size * share)
    return (
        "<!DOCTYPE html><html><body style='margin:0'>"
        f"<div style='width:{size}px;height:{size}px;background:{background};"
        "display:flex;align-items:center;justify-content:center'>"
        f"<div style='width:{tile}px;height:{tile}px'>"
        + SVG.replace("<svg ", f"<svg width='{tile}' height='{tile}' ", 1)
        + "</div></div></body></html>"
    )


def main() -> None:
    OUT.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox"]
        )
        for name, (size, background, share) in ICONS.items():
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(page_html(size, background, share))
            page.screenshot(
                path=str(OUT / name),
                omit_background=background == "transparent",
                clip={"x": 0, "y": 0, "width": size, "height": size},
            )
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
