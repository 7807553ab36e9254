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
from cgconfig.tune.histogram import MAX_SIZE, Histogram, from_counts
from cgconfig.verify.read import read_lines
from cgconfig.verify.text import open_log


def histogram_from_lines(lines: Iterable[str], *, where: str = "log") -> Histogram:
    """Count the step sizes (tokens) in vLLM log lines."""
    try:
        record = read_lines(lines, where, engine="vllm")
    except InputError:
        record = None
    steps = record.steps.get("mixed") if record is not None else None
    if steps is None or not (steps.total() or steps.out_of_range):
        raise InputError("no '--cudagraph-metrics' table rows or 'Batchsize forward time stats' "
                         "lines found", where=where,
                         hint="start vLLM with --cudagraph-metrics (or "
                              "VLLM_LOG_BATCHSIZE_INTERVAL=10) and pass its log")
    if steps.out_of_range:
        raise InputError(f"{steps.out_of_range} steps are above the limit of {MAX_SIZE} tokens",
                         where=where, hint="see 'Limits' in the README")
    kind = "cudagraph-metrics" if steps.graph or steps.eager else "batch-size stats"
    return from_counts({"decode": steps.total()},
                       source=f"vLLM server log {where}, tokens per step ({kind})", where=where,
                       empty="every step in the log has 0 tokens: no batch size to tune for")


def histogram_from_log(path: str, *, flag: str = "--vllm-log") -> Histogram:
    """Read a vLLM server log file (or ``-``), streamed."""
    return histogram_from_lines(open_log(path, f"{flag} {path}"), where=path)
