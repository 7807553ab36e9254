"""An existing launcher gains cgconfig's flags and gets the plan before it starts the engine.

    python examples/embed_argparse.py --model-path my/model --tp-size 8 \
        --cuda-graph-max-bs-decode 128 --disaggregation-mode decode
"""

from __future__ import annotations

import argparse
import sys

from cgconfig import InputError, add_arguments, resolve_namespace


def build_parser() -> argparse.ArgumentParser:
    """The launcher's own parser, extended with cgconfig's graph flags."""
    parser = argparse.ArgumentParser(description="my launcher")
    parser.add_argument("--model-path", required=True)
    parser.add_argument("--tp-size", type=int, default=1)
    parser.add_argument("--disaggregation-mode", default="null",
                        choices=["null", "prefill", "decode"])
    add_arguments(parser)  # --cuda-graph-*, --disable-cuda-graph, ... on cgconfig_* attributes
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse, resolve, print the decision, and return the exit code."""
    args = build_parser().parse_args(argv)
    try:
        plan = resolve_namespace(args, facts={"tp_size": args.tp_size,
                                              "disaggregation_mode": args.disaggregation_mode})
    except InputError as error:
        print(f"launcher: {error}", file=sys.stderr)
        return 2
    for phase in ("decode", "prefill"):
        sizes = plan.capture_sizes(phase)
        shown = f"{sizes[:4]}…{sizes[-1]}" if len(sizes) > 4 else str(sizes)
        print(f"{phase}: backend={plan.backend(phase)} captured={shown}")
    for decision in plan.decisions:
        if decision.kind != "resolver":
            print(f"  {decision.rule} ({decision.outcome}): {decision.why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
