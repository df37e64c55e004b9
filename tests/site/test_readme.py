"""The README's commands agree with the Makefile, so a newcomer who copies them gets one site."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def test_the_readme_serves_the_site_on_one_port_the_makefiles() -> None:
    readme = (ROOT / "README.md").read_text()
    default = re.search(r"^PORT \?= (\d+)$", (ROOT / "Makefile").read_text(), re.M)
    assert default
    site_ports = set(re.findall(r"(?:http://|-b )127\.0\.0\.1:(\d+)", readme))
    site_ports |= set(re.findall(r"\bPORT=(\d+)", readme))
    assert site_ports == {default.group(1)}


def test_the_readme_says_mail_in_takes_the_same_port_and_site_url_as_run() -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "`make mail-in`, like `make worker` and `make beat`, takes the same `PORT`" in readme
    for target in ("mail-in", "worker", "beat", "run"):
        recipe = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
        assert recipe and "SITE_URL='$(SITE_URL)'" in recipe.group(1), target
