"""Convert an SGLang server log into a batch-size histogram.

SGLang's scheduler logs one line every ``--decode-log-interval`` decode steps (default 40), from
``process_batch_result_decode`` (``python/sglang/srt/managers/scheduler_output_processor_mixin.py``)
through ``log_decode_stats`` (``python/sglang/srt/managers/scheduler_metrics_mixin.py``), SGLang
0.5.23::

    [2026-03-02 10:14:38 TP0] Decode batch. #running-req: 18, #token: 16384, token usage: 0.71, ...

``#running-req`` is the decode batch's request count at that step. The lines are a systematic
sample, one step in every ``interval``, so each line stands for ``interval`` steps; the
histogram's shape is that of the sample (long runs give a faithful picture, a short log a rough
one). Only the rank that logs is counted (attention-TP rank 0). With DP attention the line also
carries ``#running-req per DP: [..]``; each DP rank's count is then one batch of that rank, which
is what its graphs replay. Prefill lines (``Prefill batch. ... #new-token: N``) are counted in
the prefill phase the same way, one per logged prefill batch (SGLang logs every prefill batch).
"""

from __future__ import annotations

import os
import re
import stat
from collections import Counter
from collections.abc import Iterable, Iterator

from cgconfig.errors import InputError
from cgconfig.tune.histogram import MAX_SIZE, Histogram

MAX_LINE = 64 * 1024
"""Characters read per log line; the fields we need sit at its start."""

DEFAULT_DECODE_LOG_INTERVAL = 40
"""SGLang's ``--decode-log-interval`` default (``ServerArgs.decode_log_interval``)."""

_DECODE = re.compile(r"Decode batch\b.*?#running-req: (\d+)")
_PER_DP = re.compile(r"#running-req per DP: \[([\d, ]*)\]")
_PREFILL = re.compile(r"Prefill batch\b.*?#new-token: (\d+)")


def histogram_from_lines(lines: Iterable[str], *, interval: int = DEFAULT_DECODE_LOG_INTERVAL,
                         where: str = "log") -> Histogram:
    """Count decode and prefill batch sizes in SGLang log lines."""
    if not 1 <= interval <= 1_000_000:
        raise InputError(f"decode log interval {interval} is out of range",
                         where="--decode-log-interval", allowed="1..1000000")
    decode: Counter[int] = Counter()
    prefill: Counter[int] = Counter()
    for number, line in enumerate(lines, 1):
        match = _DECODE.search(line)
        if match:
            per_dp = _PER_DP.search(line)
            sizes = ([int(x) for x in per_dp.group(1).split(",") if x.strip()] if per_dp
                     else [int(match.group(1))])
            for size in sizes:
                if size > MAX_SIZE:
                    raise InputError(f"#running-req {size} is above {MAX_SIZE}",
                                     where=f"{where}:{number}")
                if size:
                    decode[size] += interval
            continue
        match = _PREFILL.search(line)
        if match:
            size = int(match.group(1))
            if size > MAX_SIZE:
                raise InputError(f"#new-token {size} is above {MAX_SIZE}",
                                 where=f"{where}:{number}")
            if size:
                prefill[size] += 1
    if not decode and not prefill:
        raise InputError("no 'Decode batch' or 'Prefill batch' lines found", where=where,
                         hint="pass the SGLang server's own log (scheduler lines, any log level "
                              "that includes INFO)")
    phases = {name: dict(sorted(c.items())) for name, c in
              (("decode", decode), ("prefill", prefill)) if c}
    return Histogram(phases=phases,
                     source=f"SGLang server log {where}, decode lines weighted x{interval} "
                            "(--decode-log-interval)")


def histogram_from_log(path: str, *, interval: int = DEFAULT_DECODE_LOG_INTERVAL,
                       flag: str = "--sglang-log") -> Histogram:
    """Read an SGLang server log file line by line (a regular file of any length; undecodable
    bytes are replaced, overlong lines cut, since a log is not ours to reject for them)."""
    where = f"{flag} {path}"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise InputError("not a regular file", where=where)
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = (handle.readline(MAX_LINE) for _ in iter(int, 1))
            return histogram_from_lines(_until_empty(lines), interval=interval, where=path)
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", where=where) from None


def _until_empty(lines: Iterator[str]) -> Iterator[str]:
    for line in lines:
        if not line:
            return
        yield line
