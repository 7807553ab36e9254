"""The runner's own host cost per batch, two runtime versions side by side (CPU; no GPU needed).

``PhaseRunner.run`` minus the replay: checks, routing, filling the static buffers, bookkeeping,
slicing. The graph replay is replaced by a stub that returns a fixed output, so only the
runner's Python is timed. A second runtime tree (an older checkout's ``runtime/`` folder, copied
somewhere and importable under another name) is loaded next to the installed one and the two are
timed interleaved, with the hand-made step's five ``copy_`` calls beside them.

Usage: ``cp -r OLD/runtime /tmp/old/rt_before && python benchmarks/runtime_host_ab.py --before
/tmp/old/rt_before [--bs 8 5]``.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from cgconfig.runtime import runner as runner_after

SLOT_NAMES = ("input_ids", "positions", "out_cache_loc", "req_pool_indices", "seq_lens")


def decode_slots(buffers: ModuleType) -> list[Any]:
    """The example's decode slots, built from one runtime version's classes."""
    i64, policy, axis = torch.int64, buffers.PaddingPolicy, buffers.Axis
    return [buffers.Slot("input_ids", i64), buffers.Slot("positions", i64),
            buffers.Slot("out_cache_loc", i64, policy=policy.ZERO),
            buffers.Slot("req_pool_indices", i64, axis=axis.REQUESTS, policy=policy.ZERO),
            buffers.Slot("seq_lens", i64, axis=axis.REQUESTS, policy=policy.FILL_SENTINEL,
                         pad_value=1)]


class StubGraph:
    """Stands in for a captured graph: replay returns a fixed output at no cost."""

    def __init__(self, out: torch.Tensor) -> None:
        self.out = out

    def replay(self) -> torch.Tensor:
        """The fixed output."""
        return self.out


def stub_runner(runner_mod: ModuleType, plan_mod: ModuleType, buffers: ModuleType) -> Any:
    """A captured decode runner (sizes 1, 2, 4, 8) whose graphs are stubs."""
    out = torch.zeros(8, 4)
    plan = plan_mod.PhaseCapture("decode", "full", (1, 2, 4, 8))
    runner = runner_mod.PhaseRunner(plan, lambda inputs: out, decode_slots(buffers),
                                    device="cpu", progress=False)
    runner.capture()
    graphs = runner.graphs._graphs  # both versions keep the registry's dict under this name
    for key in list(graphs):
        graphs[key] = StubGraph(out)
    if hasattr(runner, "_by_size"):
        runner._by_size = {size: StubGraph(out) for size in runner._by_size}
    return runner


def main(argv: list[str] | None = None) -> int:
    """Time both runners and the hand-made copies, interleaved; print medians and minima."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True,
                        help="a copy of an older runtime/ folder (its name is the package name)")
    parser.add_argument("--bs", type=int, nargs="+", default=[8, 5])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--calls", type=int, default=1000)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.before.parent))
    name = args.before.name
    before = stub_runner(importlib.import_module(f"{name}.runner"),
                         importlib.import_module(f"{name}.plan_view"),
                         importlib.import_module(f"{name}.buffers"))
    from cgconfig.runtime import buffers as buffers_after
    from cgconfig.runtime import plan_view as plan_after

    after = stub_runner(runner_after, plan_after, buffers_after)
    for bs in args.bs:
        batch = {n: torch.zeros(bs, dtype=torch.int64) for n in SLOT_NAMES}
        static = {k: v.clone() for k, v in batch.items()}

        def hand(static: dict[str, torch.Tensor] = static,
                 batch: dict[str, torch.Tensor] = batch) -> None:
            for key, buf in static.items():
                buf.copy_(batch[key])

        steps: dict[str, Callable[[], Any]] = {
            "before": partial(before.run, batch, bs),
            "after": partial(after.run, batch, bs),
            "hand copies": hand,
        }
        samples: dict[str, list[float]] = {k: [] for k in steps}
        with torch.no_grad():
            for _ in range(args.rounds):
                for label, step in steps.items():
                    t0 = time.perf_counter()
                    for _ in range(args.calls):
                        step()
                    samples[label].append((time.perf_counter() - t0) / args.calls * 1e6)
        for label, values in samples.items():
            print(f"bs {bs} {label:12s} median {statistics.median(values):7.2f} us  "
                  f"min {min(values):7.2f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
