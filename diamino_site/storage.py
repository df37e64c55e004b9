"""The static files' storage: WhiteNoise's manifest storage, its URLs worked out once.

Each ``{% static %}`` asked the manifest storage for the file's URL, which
parses, looks up the manifest, joins and quotes the name again every time: about
20 µs for each of the nine static URLs of a game page. The manifest is read when
the process starts and does not change while it lives, so a name's URL is kept
once found. A missing file is not kept: it raises every time, as before.
"""

from __future__ import annotations

from django.conf import settings
from whitenoise.storage import CompressedManifestStaticFilesStorage


class ManifestStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage (hashed names, compressed copies), each name's URL kept."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._urls: dict[str, str] = {}

    def url(self, name: str | None, force: bool = False) -> str:
        # DEBUG gives the unhashed name and ``force`` asks for the hashed one anyway:
        # both as Django does, without the memo.
        if force or settings.DEBUG or name is None:
            return super().url(name, force)
        url = self._urls.get(name)
        if url is None:
            url = self._urls[name] = super().url(name)
        return url

    def post_process(self, *args, **kwargs):
        # collectstatic writes a new manifest: the URLs found before it are forgotten.
        self._urls.clear()
        yield from super().post_process(*args, **kwargs)
        self._urls.clear()
