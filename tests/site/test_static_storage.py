"""With DEBUG off, a page's static URLs are the manifest's hashed names (WhiteNoise's storage)."""

from __future__ import annotations

import json

import pytest
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command
from django.template import engines

STORAGE = "whitenoise.storage.CompressedManifestStaticFilesStorage"


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
