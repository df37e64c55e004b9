"""The static files' storage keeps each name's URL: the manifest's hashed name, or an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command
from django.template import engines

from diamino_site.storage import ManifestStaticFilesStorage

STORAGE = "diamino_site.storage.ManifestStaticFilesStorage"


def storage_with_manifest(root: Path, paths: dict[str, str]) -> ManifestStaticFilesStorage:
    (root / "staticfiles.json").write_text(json.dumps({"paths": paths, "version": "1.1"}))
    return ManifestStaticFilesStorage(location=root, base_url="/static/")


def test_a_static_url_is_the_manifest_s_hashed_name_every_time(tmp_path) -> None:
    storage = storage_with_manifest(tmp_path, {"css/site.css": "css/site.0123abcd.css"})
    assert storage.url("css/site.css") == "/static/css/site.0123abcd.css"
    assert storage.url("css/site.css") == "/static/css/site.0123abcd.css"


def test_a_name_s_url_is_kept_once_found(tmp_path) -> None:
    storage = storage_with_manifest(tmp_path, {"js/site.js": "js/site.0123abcd.js"})
    first = storage.url("js/site.js")
    storage.hashed_files = {}  # the manifest is not read again for a name already found
    assert storage.url("js/site.js") == first


def test_a_file_missing_from_the_manifest_raises_each_time(tmp_path) -> None:
    storage = storage_with_manifest(tmp_path, {"css/site.css": "css/site.0123abcd.css"})
    for _ in range(2):
        with pytest.raises(
            ValueError, match=r"Missing staticfiles manifest entry for 'css/none\.css'"
        ):
            storage.url("css/none.css")


def test_with_debug_on_the_url_is_the_unhashed_name(tmp_path, settings) -> None:
    storage = storage_with_manifest(tmp_path, {"css/site.css": "css/site.0123abcd.css"})
    assert storage.url("css/site.css") == "/static/css/site.0123abcd.css"
    settings.DEBUG = True
    assert storage.url("css/site.css") == "/static/css/site.css"


def test_collectstatic_still_hashes_and_the_static_tag_gives_the_new_name(
    tmp_path, settings
) -> None:
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
    # Collected again in the same process (a new file): the new name, not the one kept.
    second = collect("body { color: navy; }\n")
    assert second != first
    assert tag.render() == staticfiles_storage.url("css/site.css") == f"/static/{second}"
