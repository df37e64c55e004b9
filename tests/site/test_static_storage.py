"""With DEBUG off, a page's static URLs are the manifest's hashed names (WhiteNoise's storage),
and our scripts and style sheets are served minified (diamino_site/storage.py)."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from pathlib import Path

import brotli
import pytest
from django.conf import settings as django_settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.template import engines
from django.test import Client, override_settings

from diamino_site.storage import StaticStorage

STORAGE = "whitenoise.storage.CompressedManifestStaticFilesStorage"
ROOT = Path(__file__).resolve().parents[2]


def test_collectstatic_hashes_and_the_static_tag_gives_the_new_name(tmp_path, settings) -> None:
    source, collected = tmp_path / "source", tmp_path / "collected"
    (source / "css").mkdir(parents=True)
    settings.STATICFILES_DIRS = [source]
    settings.STATICFILES_FINDERS = ["django.contrib.staticfiles.finders.FileSystemFinder"]
    settings.STATIC_ROOT = collected
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": STORAGE}}
    tag = engines["django"].from_string("{% load static %}{% static 'css/site.css' %}")
    with pytest.raises(ValueError, match="Missing staticfiles manifest entry"):
        tag.render()  # not collected yet

    def collect(css: str) -> str:
        (source / "css" / "site.css").write_text(css)
        call_command("collectstatic", interactive=False, verbosity=0)
        hashed = json.loads((collected / "staticfiles.json").read_text())["paths"]["css/site.css"]
        assert (collected / hashed).read_text() == css
        return hashed

    first = collect("body { color: black; }\n")
    assert tag.render() == f"/static/{first}"
    # Collected again in the same process (a new file): the new name.
    second = collect("body { color: navy; }\n")
    assert second != first
    assert tag.render() == staticfiles_storage.url("css/site.css") == f"/static/{second}"


PRODUCTION = {"BACKEND": "diamino_site.storage.StaticStorage"}


def collect(root: Path) -> dict[str, str]:
    """``collectstatic`` into ``root``, the settings' STATIC_ROOT; the manifest's names."""
    call_command("collectstatic", interactive=False, verbosity=0)
    names: dict[str, str] = json.loads((root / "staticfiles.json").read_text())["paths"]
    return names


@pytest.fixture(scope="module")
def collected_once(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The real files collected with the production storage, once for the module's tests
    (minifying and compressing them all with gzip and Brotli takes seconds)."""
    root = tmp_path_factory.mktemp("collected")
    with override_settings(
        STATIC_ROOT=root, STORAGES={**django_settings.STORAGES, "staticfiles": PRODUCTION}
    ):
        return root, collect(root)


@pytest.fixture
def production(collected_once, settings) -> tuple[Path, dict[str, str]]:
    """Those files and their names, the settings pointing at them (the test client's
    WhiteNoise serves them)."""
    root, names = collected_once
    settings.STATIC_ROOT = root
    settings.STORAGES = {**settings.STORAGES, "staticfiles": PRODUCTION}
    return root, names


def test_collectstatic_minifies_our_scripts_and_style_sheets_and_nothing_else(
    production,
) -> None:
    tmp_path, names = production
    storage = StaticStorage(location=tmp_path)

    served: dict[str, bytes] = {}
    for name in ("js/board.js", "js/site.js", "js/menu.js", "css/board.css", "css/site.css"):
        source = finders.find(name)
        assert isinstance(source, str)
        original = Path(source).read_bytes()
        served[name] = (tmp_path / names[name]).read_bytes()
        assert len(served[name]) < 0.8 * len(original), name
        # The unhashed copy and the compressed ones are the same minified file...
        assert (tmp_path / name).read_bytes() == served[name]
        assert gzip.decompress((tmp_path / (names[name] + ".gz")).read_bytes()) == served[name]
        assert brotli.decompress((tmp_path / (names[name] + ".br")).read_bytes()) == served[name]
        # ...and its name carries the minified file's own hash: a new minifier, a new name.
        assert f".{storage.file_hash(name, ContentFile(served[name]))}." in names[name]
    # The packages' files are served as they come.
    for name in ("django_htmx/htmx-2.min.js", "admin/js/core.js", "favicon.svg"):
        source = finders.find(name)
        assert isinstance(source, str)
        assert (tmp_path / names[name]).read_bytes() == Path(source).read_bytes(), name

    # Collected again, nothing changed: the same names and the same files.
    assert collect(tmp_path) == names
    assert all((tmp_path / names[name]).read_bytes() == text for name, text in served.items())
    # A dry run writes nothing, the manifest least of all.
    manifest = (tmp_path / "staticfiles.json").read_bytes()
    call_command("collectstatic", interactive=False, verbosity=0, dry_run=True)
    assert (tmp_path / "staticfiles.json").read_bytes() == manifest


def test_a_browser_that_takes_brotli_gets_the_files_so_and_another_gets_them_gzipped(
    production,
) -> None:
    tmp_path, names = production
    client = Client()  # its WhiteNoise reads the files just collected
    for name in ("js/board.js", "css/board.css", "django_htmx/htmx-2.min.js"):
        url = f"/static/{names[name]}"
        file = (tmp_path / names[name]).read_bytes()
        # What Chromium asks with (seen in the phone benchmark), then a browser without Brotli.
        small = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br, zstd")
        assert small["Content-Encoding"] == "br", name
        assert "Accept-Encoding" in small["Vary"]
        assert brotli.decompress(small.getvalue()) == file
        gzipped = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate")
        assert gzipped["Content-Encoding"] == "gzip", name
        assert gzip.decompress(gzipped.getvalue()) == file
        assert int(small["Content-Length"]) < 0.95 * int(gzipped["Content-Length"]), name
        plain = client.get(url, HTTP_ACCEPT_ENCODING="identity")
        assert not plain.has_header("Content-Encoding")
        assert plain.getvalue() == file


# rjsmin keeps a template literal only when it holds no other one ("(Unnested) template
# literals", its documentation): it dropped the space of `a${b ? ` ${c}` : ""}`.
NESTED_TEMPLATE = re.compile(r"\$\{[^}\n]*`")


def test_no_script_of_ours_nests_a_template_literal_in_another() -> None:
    scripts = sorted((ROOT / "static" / "js").glob("*.js"))
    assert scripts
    nested = [
        f"{script.name}:{number}: {line.strip()}"
        for script in scripts
        for number, line in enumerate(script.read_text().splitlines(), start=1)
        if NESTED_TEMPLATE.search(line)
    ]
    assert not nested, "a template literal inside another (rjsmin mangles it):\n" + "\n".join(
        nested
    )


@pytest.mark.node
def test_every_minified_script_still_parses(production) -> None:
    tmp_path, names = production
    ours = [name for name in names if name.startswith("js/") and name.endswith(".js")]
    assert "js/board.js" in ours and "js/push.js" in ours
    for name in ours:
        checked = subprocess.run(
            ["node", "--check", str(tmp_path / names[name])], capture_output=True, text=True
        )
        assert checked.returncode == 0, f"{name}: {checked.stderr}"
