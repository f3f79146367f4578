"""Command line: python3 -m conveyor_plot RESULT.json... -o FILE.png|svg [--title T] [--dpi N].

Exit codes as in the conveyor CLI: 0 ok, 1 runtime failure (no matplotlib, cannot write), 2 bad input.
Errors are one line on stderr, without a traceback."""

from __future__ import annotations

import argparse
import sys

from . import Failure, UsageError, plot

PROG = "conveyor_plot"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, like every other bad input
        raise UsageError(message)


def main(argv=None) -> int:
    parser = _Parser(prog=PROG, description="Draw Conveyor JSON results (stream, probe, cholesky, "
                     "sim, sim_sweep) or a Chrome trace as a PNG or SVG figure.")
    parser.add_argument("inputs", nargs="+", metavar="RESULT.json")
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="figure to write: .png or .svg")
    parser.add_argument("--title", help="figure title (default: the command and what it measures)")
    parser.add_argument("--dpi", type=float, help="resolution of a PNG (default 150)")
    try:
        args = parser.parse_args(argv)
        kind = plot(args.inputs, args.output, title=args.title, dpi=args.dpi)
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except Failure as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {args.output} ({kind})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
