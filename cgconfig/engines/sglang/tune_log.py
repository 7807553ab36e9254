"""Convert an SGLang server log into a batch-size histogram.

SGLang's scheduler logs one line every ``--decode-log-interval`` decode steps (default 40),
SGLang 0.5.23 ``managers/scheduler_components/metrics_reporter.py``
(``SchedulerMetricsReporter.report_decode_stats``; older releases
``scheduler_metrics_mixin.py``)::

    [2026-03-02 10:14:38 TP0] Decode batch, #running-req: 18, #token: 16384, token usage: 0.71, ...

``#running-req`` is the decode batch's request count at that step. The lines are a systematic
sample, one step in every ``interval``, so each line stands for ``interval`` steps; the
histogram's shape is that of the sample (long runs give a faithful picture, a short log a rough
one). Each attention-DP rank logs its own line (older releases print ``#running-req per DP:
[..]`` on one line instead; each entry is then one batch of that rank). Prefill lines
(``Prefill batch, ... #new-token: N``) are counted in the prefill phase, one per logged batch.

The lines are read by :class:`cgconfig.engines.sglang.log_reader.SglangReader`, the reader
``cgconfig verify`` uses: linear-time scanning, ASCII digits only, capped line length.
"""

from __future__ import annotations

from collections.abc import Iterable

from cgconfig.engines.sglang.log_reader import SglangReader
from cgconfig.errors import InputError
from cgconfig.tune.histogram import MAX_SIZE, Histogram, from_counts
from cgconfig.verify.record import rank_of
from cgconfig.verify.text import MAX_LINE, TOO_LONG, open_log, strip_escapes

DEFAULT_DECODE_LOG_INTERVAL = 40
"""SGLang's ``--decode-log-interval`` default (``ServerArgs.decode_log_interval``)."""

__all__ = ["DEFAULT_DECODE_LOG_INTERVAL", "MAX_LINE", "histogram_from_lines", "histogram_from_log"]


def histogram_from_lines(lines: Iterable[str], *, interval: int = DEFAULT_DECODE_LOG_INTERVAL,
                         where: str = "log") -> Histogram:
    """Count decode and prefill batch sizes in SGLang log lines."""
    if not 1 <= interval <= 1_000_000:
        raise InputError(f"decode log interval {interval} is out of range",
                         where="--decode-log-interval", allowed="1..1000000")
    reader = SglangReader(interval)
    for number, raw in enumerate(lines, 1):
        line = strip_escapes(raw[:MAX_LINE])
        decode = "Decode batch" in line
        if not decode and "Prefill batch" not in line:
            continue
        rank, start = rank_of(line)
        reader.last_size = None
        reader.feed(number, rank, line[start:].lstrip())
        size = reader.last_size
        if size is not None and (size == TOO_LONG or size > MAX_SIZE):
            name = "#running-req" if decode else "#new-token"
            shown = "a number of more than 12 digits" if size == TOO_LONG else str(size)
            raise InputError(f"{name} {shown} is above {MAX_SIZE}", where=f"{where}:{number}")
    steps = reader.record.steps
    if not any(name in steps for name in ("decode", "prefill")):
        raise InputError("no 'Decode batch' or 'Prefill batch' lines found", where=where,
                         hint="pass the SGLang server's own log (scheduler lines, any log level "
                              "that includes INFO)")
    histogram = from_counts({name: steps[name].total() for name in ("decode", "prefill")
                             if name in steps},
                            source=f"SGLang server log {where}, decode lines weighted "
                                   f"x{interval} (--decode-log-interval)", where=where,
                            empty="every step in the log has size 0: no batch size to tune for")
    if reader.malformed_steps:
        histogram.notes.append(f"{where}: skipped {reader.malformed_steps} step lines whose "
                               "#running-req or #new-token is not a whole number of ASCII "
                               "digits")
    return histogram


def histogram_from_log(path: str, *, interval: int = DEFAULT_DECODE_LOG_INTERVAL,
                       flag: str = "--sglang-log") -> Histogram:
    """Read an SGLang server log file (or ``-``) line by line, streamed (undecodable bytes are
    replaced, overlong lines cut, since a log is not ours to reject for them)."""
    return histogram_from_lines(open_log(path, f"{flag} {path}"), interval=interval, where=path)
