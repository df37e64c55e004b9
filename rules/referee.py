"""Command-line referee: ``python -m rules.referee game.json`` (or ``-`` for stdin).

Prints the judgement as JSON and exits 0 when the record could be judged (even
with illegal moves in it); exits 2 with a one-line message on stderr when the
document is unusable or the judgement cannot be written. A reader that stops
early (``| head``) is not an error: the record was judged, exit 0, quietly.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Sequence

from rules.errors import RecordError
from rules.record import judge_document, load_json

USAGE = "usage: python -m rules.referee GAME.json   (or - to read standard input)"


def _say(message: str) -> None:
    """One line on stderr; a closed stderr must not turn the exit code into a traceback."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(message, file=sys.stderr, flush=True)


def _write(text: str) -> int:
    """Print the judgement and return the exit code, whatever becomes of standard output."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()  # here, not at exit, where an error would be reported after main
    except BrokenPipeError:
        # The reader has gone (``| head``). Python would try to flush the rest
        # again at exit and report that failure: point stdout at /dev/null first.
        _silence_stdout()
        return 0
    except (OSError, ValueError, AttributeError) as exc:  # a full disk, a closed stdout
        _silence_stdout()
        _say(f"referee: cannot write the judgement: {getattr(exc, 'strerror', None) or exc}")
        return 2
    return 0


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the referee; return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        _say(USAGE)
        return 2
    try:
        if args[0] == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args[0], "rb") as handle:
                text = handle.read()
        judgement = judge_document(load_json(text))
    except OSError as exc:
        _say(f"referee: cannot read {args[0]}: {exc.strerror}")
        return 2
    except RecordError as exc:
        _say(f"referee: {exc}")
        return 2
    except Exception as exc:
        _say(f"referee: internal error on this record ({type(exc).__name__})")
        return 2
    return _write(json.dumps(judgement, ensure_ascii=False))


if __name__ == "__main__":
    sys.exit(main())
