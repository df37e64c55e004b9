"""Command-line referee: ``python -m rules.referee game.json`` (or ``-`` for stdin).

Prints the judgement as JSON and exits 0 when the record could be judged (even
with illegal moves in it); exits 2 with a one-line message on stderr when the
document is unusable.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from rules.errors import RecordError
from rules.record import judge_document, load_json

USAGE = "usage: python -m rules.referee GAME.json   (or - to read standard input)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the referee; return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        if args[0] == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args[0], "rb") as handle:
                text = handle.read()
        judgement = judge_document(load_json(text))
    except OSError as exc:
        print(f"referee: cannot read {args[0]}: {exc.strerror}", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        print(f"referee: internal error on this record ({type(exc).__name__})", file=sys.stderr)
        return 2
    print(json.dumps(judgement, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
