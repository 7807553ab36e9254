"""Convert a vLLM server log into a batch-size histogram.

Two per-step sources, read by :class:`cgconfig.engines.vllm.log_reader.VllmReader` (the reader
``cgconfig verify`` uses), vLLM 0.33.0:

* ``--cudagraph-metrics`` (``compilation/cuda_graph.py: CUDAGraphLogging``): at each stats
  interval a table ``| Unpadded Tokens | Padded Tokens | Num Paddings | Runtime Mode | Count |``;
  each table covers one interval, so the tables add up;
* ``VLLM_LOG_BATCHSIZE_INTERVAL=<seconds>`` (``forward_context.py``): ``Batchsize forward time
  stats (batchsize, count, median_time(ms)): [(bs, count, ms), ...]``; its counts are
  cumulative, so the last line of each rank is that rank's total.

When both are present the metrics table is used. vLLM's capture sizes count tokens per step
(a decode step of N requests is N x (1 + speculative tokens) tokens), and so does its plan's
decode list, so the sizes go into the histogram's ``decode`` phase, in tokens.
"""

from __future__ import annotations

from collections.abc import Iterable

from cgconfig.errors import InputError
from cgconfig.tune.histogram import MAX_SIZE, Histogram
from cgconfig.verify.read import read_lines
from cgconfig.verify.text import open_log


def histogram_from_lines(lines: Iterable[str], *, where: str = "log") -> Histogram:
    """Count the step sizes (tokens) in vLLM log lines."""
    try:
        record = read_lines(lines, where, engine="vllm")
    except InputError:
        record = None
    steps = record.steps.get("mixed") if record is not None else None
    if steps is None or not steps.total():
        raise InputError("no '--cudagraph-metrics' table rows or 'Batchsize forward time stats' "
                         "lines found", where=where,
                         hint="start vLLM with --cudagraph-metrics (or "
                              "VLLM_LOG_BATCHSIZE_INTERVAL=10) and pass its log")
    counts = {size: count for size, count in sorted(steps.total().items()) if size}
    too_big = [s for s in counts if s > MAX_SIZE]
    if too_big:
        raise InputError(f"a step of {max(too_big)} tokens is above {MAX_SIZE}", where=where)
    return Histogram(phases={"decode": counts},
                     source=f"vLLM server log {where}, tokens per step "
                            f"({'cudagraph-metrics' if steps.graph or steps.eager else 'batch-size stats'})")


def histogram_from_log(path: str, *, flag: str = "--vllm-log") -> Histogram:
    """Read a vLLM server log file (or ``-``), streamed."""
    return histogram_from_lines(open_log(path, f"{flag} {path}"), where=path)
