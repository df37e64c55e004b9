"""The static files as production serves them: our scripts and style sheets minified,
then every file hashed and compressed (WhiteNoise's storage).

The sources stay as they are written, comments and all (no build step): ``collectstatic``
minifies its copies of the project's own ``js/`` and ``css/`` files (``static/``) before
WhiteNoise names them by their hash and compresses them, with gzip and, the Brotli package
being installed (``whitenoise[brotli]``), with Brotli too. On a phone's slow network the
minifying is about 10 KB less before a game page's board can be used, Brotli 3.6 KB more
(docs/PERFORMANCE.md, "A page on a phone"). The packages' files (the admin's, htmx's) are
collected untouched, and compressed.

rjsmin and rcssmin only take out comments and spaces; they are the minifiers
django-compressor and django-pipeline use. rjsmin handles a template literal only when none is nested
in another: our scripts keep to that (``tests/site/test_static_storage.py``), and every
browser test runs the minified files (``tests/browser/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import rcssmin
import rjsmin
from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from whitenoise.storage import CompressedManifestStaticFilesStorage

OURS = ("js/", "css/")


def minifier(name: str) -> Callable[[str], str] | None:
    """What minifies static file ``name``, or None for a file left as it is."""
    name = name.replace("\\", "/")  # collectstatic's names use the system's separator
    if not name.startswith(OURS) or ".min." in name:
        return None
    if name.endswith(".js"):
        return rjsmin.jsmin
    if name.endswith(".css"):
        return rcssmin.cssmin
    return None


class StaticStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage, after minifying the collected copies of our files."""

    def post_process(
        self, paths: dict[str, tuple[Storage, str]], dry_run: bool = False, **options: Any
    ) -> Iterator[tuple[str, str | None, Any]]:
        collected = dict(paths)
        for name, (source, path) in paths.items():
            minify = None if dry_run else minifier(name)
            if minify is None:
                continue
            with source.open(path) as file:
                small = minify(file.read().decode("utf-8"))
            # The hashes are then the minified files', and so are the compressed copies.
            self.delete(name)
            collected[name] = (self, self.save(name, ContentFile(small.encode("utf-8"))))
        # By name: Django's and WhiteNoise's post_process read it from their keywords (a dry
        # run passed by position would write an empty manifest).
        yield from super().post_process(collected, dry_run=dry_run, **options)
