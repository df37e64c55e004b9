"""The release the running code belongs to, for ``DIAMINO_RELEASE``'s default.

Read once, when the settings load: the installed package's version and, in a
git checkout, the commit (``git rev-parse HEAD``; no git, or not a checkout,
and the version alone). A deploy that is not a checkout sets
``DIAMINO_RELEASE`` itself (``.env.example``).
"""

from __future__ import annotations

import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


def default_release(base_dir: Path) -> str:
    """``"0.1.0+<commit>"``, or the version alone when the commit cannot be read."""
    try:
        release = version("diamino")
    except PackageNotFoundError:
        release = "0"
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=base_dir,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{release}+{commit}" if commit else release
