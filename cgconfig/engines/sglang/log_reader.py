"""SGLang's log lines about CUDA graphs, read into a :class:`~cgconfig.verify.record.LogRecord`.

Formats (each checked against the release's source; docs/verify.md lists them):

* 0.5.18+ (``model_executor/model_runner_components/cuda_graph_setup.py``:
  ``capture_decode_graph`` / ``capture_prefill_graph``; ``speculative/eagle_worker_v2.py``;
  0.5.18 prints the decode ``bs=[...]`` on the begin line, 0.5.23 on the end line)::

    Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, avail mem=60.10 GB
    Capture target decode CUDA graph end. bs=[1, 2, 4], elapsed=3.20 s, mem usage=0.51 GB, avail mem=59.59 GB.
    Capture target prefill CUDA graph begin. backend=breakable, num_tokens=[4, 8], avail mem=59.59 GB
    Capture target prefill CUDA graph end. elapsed=9.10 s, mem usage=1.20 GB, avail mem=58.39 GB.
    Disable prefill CUDA graph capture because no configured capture size fits backend=...

* 0.5.6-0.5.13 (``model_executor/model_runner.py``, ``cuda_graph_runner.py``,
  ``piecewise_cuda_graph_runner.py``; read from 0.5.6 and 0.5.10) and 0.4.x (read from 0.4.10;
  drafts: ``speculative/eagle_worker.py`` ``Capture draft cuda graph begin/end``)::

    Capture cuda graph begin. This can take up to several minutes. avail mem=11.82 GB
    Capture cuda graph bs [1, 2, 4, 8]
    Capture cuda graph end. Time elapsed: 27.41 s. mem usage=0.83 GB. avail mem=10.81 GB.
    Capture piecewise CUDA graph begin. avail mem=10.81 GB
    Capture cuda graph num tokens [4, 8, 12, 16, 20]
    Capture piecewise CUDA graph end. Time elapsed: 9.10 s. mem usage=0.20 GB. avail mem=10.61 GB.

  With ``--enable-breakable-cuda-graph`` (0.5.11-0.5.13, ``breakable_cuda_graph_runner.py``
  ``BreakableCudaGraphRunner.__init__``) the piecewise lines frame the breakable runner's, which
  names its token sizes instead of the ``num tokens`` line::

    [BCG] Capture num tokens: [4, 8, 12, 16, 20]

* per step (0.5.23 ``managers/scheduler_components/metrics_reporter.py``; older
  ``scheduler_metrics_mixin.py``)::

    Decode batch, #running-req: 18, #token: 16384, token usage: 0.71, cuda graph: True, ...
    Prefill batch, #new-seq: 1, #new-token: 512, #cached-token: 0, ..., cuda graph: False, ...

  (``Decode batch.`` with a full stop in older releases; ``Decode batch [iter],`` with
  ``LOG_FORWARD_ITERS``.) Each decode line stands for ``--decode-log-interval`` steps.

* the launch arguments: ``server_args={...}`` (0.5.23 ``entrypoints/engine.py``, the resolved
  dict) or ``server_args=ServerArgs(...)`` (0.4.10-0.5.18 ``entrypoints/engine.py``,
  ``logger.info(f"{server_args=}")``).

Every line is scanned with ``str.find`` (linear, no regular expression).
"""

from __future__ import annotations

from cgconfig.verify.args_text import parse_call, parse_mapping
from cgconfig.verify.record import MAX_NOTES, MAX_RANKS, Capture, LogRecord
from cgconfig.verify.text import (
    MALFORMED,
    TOO_LONG,
    after,
    float_after,
    int_list,
    progress,
    size_after,
    word_after,
)

#: The first release that logs ``Capture target decode CUDA graph``; the first that prints
#: ``server_args=ServerArgs(...)``.
_ERA_NEW_SINCE = "0.5.18"
_SERVER_ARGS_CALL_FROM = "0.4.0"
ERA_NEW = f"SGLang {_ERA_NEW_SINCE}+"
"""``Capture target decode CUDA graph begin/end``: read from 0.5.18 and 0.5.23."""
#: The last release that prints the legacy formats below: 0.5.13's ``model_runner.py`` logs
#: ``Capture piecewise CUDA graph begin``; 0.5.14 (the unified ``cuda_graph_config``) logs
#: ``Capture {role} decode CUDA graph begin`` (``model_runner.py``; 0.5.17
#: ``model_runner_components/cuda_graph_setup.py``), read from each wheel.
_ERA_OLD_UNTIL = "0.5.13"
ERA_PIECEWISE = f"SGLang 0.5.6-{_ERA_OLD_UNTIL}"
"""The legacy lines plus ``Capture piecewise CUDA graph``: read from 0.5.6 and 0.5.10."""
ERA_LEGACY = f"SGLang 0.4-{_ERA_OLD_UNTIL}"
"""``Capture cuda graph begin/bs/end`` alone: read from 0.4.10 (and 0.5.6, 0.5.10 without
piecewise graphs)."""
#: Format → the releases that print it (oldest, newest; ``None``: still printed). 0.5.18 prints
#: the new lines too (its decode list on the begin line) and is judged by 0.5.19+'s rules.
ERA_RELEASES: dict[str, tuple[str, str | None]] = {
    ERA_NEW: ("0.5.19", None), ERA_PIECEWISE: ("0.5.6", _ERA_OLD_UNTIL),
    ERA_LEGACY: ("0.4.0", _ERA_OLD_UNTIL)}
#: ``server_args={...}``: 0.5.19-0.5.23 ``entrypoints/engine.py`` log
#: ``server_args.resolved_dict()`` (0.5.18 and older the ``ServerArgs(...)`` repr).
SERVER_ARGS_DICT: tuple[str, str | None] = ("0.5.19", None)
#: ``[BCG] Capture num tokens: [...]``: the breakable prefill runner of 0.5.11-0.5.13 (absent
#: from 0.5.10's wheel; 0.5.14's unified capture logs ``Capture target prefill``).
BCG_SIZES_LINE = "[BCG] Capture num tokens:"
BCG_RELEASES: tuple[str, str | None] = ("0.5.11", "0.5.13")
_LEGACY_WORDS = ("cuda graph", "cpu graph", "npu graph", "xpu graph", "CUDA graph")
MARKERS = ("Capture ", "Decode batch", "Prefill batch", "server_args=", "Disable prefill CUDA graph")
_GRAPH_WORDS = (" CUDA graph ", " CPU graph ", " NPU graph ", " XPU graph ")


class SglangReader:
    """Feed it the lines of one log, in order."""

    engine = "sglang"

    def __init__(self, interval: int = 40) -> None:
        self.record = LogRecord(engine="sglang")
        self.interval = interval
        self._era_rank = 0
        self._by_rank: dict[str, dict[str, Capture]] = {}
        self._last_rank = ""
        self._open: Capture | None = None
        """The legacy capture under way (between its begin and end lines): a bare progress bar
        (0.4.x ``cuda_graph_runner.py``: ``tqdm(capture_bs)`` with no label) counts it."""
        self.last_size: int | None = None
        """The size the last per-step line gave (:data:`TOO_LONG` for an overlong number)."""
        self.malformed_steps = 0
        """Step lines whose size is not a whole ASCII integer (``1_0``, ``12.5``): skipped."""

    def _era(self, era: str, line: int = 0) -> None:
        rank = {ERA_LEGACY: 1, ERA_PIECEWISE: 2, ERA_NEW: 3}[era]
        if rank > self._era_rank:
            self._era_rank, self.record.era = rank, era
        oldest, newest = ERA_RELEASES[era]
        self.record.hint(f"format '{era}'", oldest, newest, line)

    def feed(self, number_: int, rank: str, text: str) -> bool:
        """Read one message (prefix removed); returns whether it was an SGLang line."""
        if "Decode batch" in text:
            return self._decode_step(rank, text)
        if "Prefill batch" in text:
            return self._prefill_step(text)
        if BCG_SIZES_LINE in text:
            return self._breakable_sizes(number_, rank, text)
        if "Capture " in text:
            return self._capture(number_, rank, text[text.find("Capture "):])
        for bar, group in (("Capturing batches (", "decode"), ("Capturing num tokens (", "prefill")):
            if bar in text:
                return self._bar(number_, rank, group, text)
        if self._open is not None and _is_bare_bar(text):
            return self._bare_bar(text)
        if text.startswith("Load weight begin.") and "avail mem=" in text:
            free = float_after(text, "avail mem=")
            if free is not None and 0 < free < 1 << 20:
                # Free memory before the weights load: the GPU's total less its context.
                self.record.note_fact("gpu_memory_gib", free, number_, text)
            return False
        if "server_args=" in text:
            return self._args(number_, text[text.find("server_args="):])
        if text.startswith("Disable prefill CUDA graph"):
            self.record.disabled.setdefault("prefill", text)
            self.record.evidence += 1
            return True
        return False

    # -- per-step lines ------------------------------------------------------------------
    def _decode_step(self, rank: str, text: str) -> bool:
        at = text.find("Decode batch")
        size = size_after(text, "#running-req:", at)
        self.last_size = size
        if size == MALFORMED:
            self.malformed_steps += 1
        if size is None or size in (TOO_LONG, MALFORMED):
            return False
        graph = _bool_after(text, "cuda graph:", at)
        steps = self.record.steps_of("decode", "requests")
        steps.weight = self.interval
        per_dp = after(text, "#running-req per DP:", at)
        sizes = int_list(text, per_dp) if per_dp >= 0 else None
        for one in sizes if sizes is not None else [size]:
            self.last_size = max(self.last_size or 0, one)
            if one:
                steps.add(one, graph, self.interval)
        self.record.evidence += 1
        self.record.add_rank(rank)
        return True

    def _prefill_step(self, text: str) -> bool:
        at = text.find("Prefill batch")
        size = size_after(text, "#new-token:", at)
        self.last_size = size
        if size == MALFORMED:
            self.malformed_steps += 1
        if size is None or size in (TOO_LONG, MALFORMED):
            return False
        graph = _bool_after(text, "cuda graph:", at)
        if size:
            self.record.steps_of("prefill", "tokens").add(size, graph, 1)
        self.record.evidence += 1
        return True

    # -- capture lines ---------------------------------------------------------------------
    def _capture(self, line: int, rank: str, text: str) -> bool:
        if rank:
            self.record.add_rank(rank)
            self._last_rank = rank
        if (text.startswith("Capture target ") or text.startswith("Capture draft ")) and \
                self._capture_new(line, rank, text):
            return True
        if text.startswith("Capture piecewise CUDA graph ") or any(
                text.startswith(f"Capture {w} ") or text.startswith(f"Capture draft {w} ") or
                text.startswith(f"Capture draft extend {w} ") for w in _LEGACY_WORDS):
            return self._capture_legacy(line, rank, text)
        return False

    def _bar(self, line: int, rank: str, group: str, text: str) -> bool:
        """The capture progress bar (``Capturing batches (bs=1 avail_mem=...): 100%|..| 4/4``,
        ``model_executor/cuda_graph_runner.py``; ``Capturing num tokens (...)`` for the
        piecewise prefill graphs): the graph count where no list is printed."""
        counted = progress(text)
        if counted is None:
            return False
        # A bar inside a legacy capture (a draft's too) counts that capture's graphs.
        capture = self._open or self._group(rank or self._last_rank, group, line)
        capture.count = max(capture.count or 0, counted[1])
        capture.done = max(capture.done or 0, counted[0])
        self.record.evidence += 1
        return True

    def _bare_bar(self, text: str) -> bool:
        counted = progress(text)
        if counted is None or self._open is None:
            return False
        capture = self._open
        capture.count = max(capture.count or 0, counted[1])
        capture.done = max(capture.done or 0, counted[0])
        self.record.evidence += 1
        return True

    def _group(self, rank: str, group: str, line: int) -> Capture:
        if rank not in self._by_rank and len(self._by_rank) >= MAX_RANKS:
            rank = "(other ranks)"  # a bounded record, whatever the log holds
        groups = self._by_rank.setdefault(rank, {})
        if group not in groups:
            groups[group] = Capture(group=group, line=line)
        return groups[group]

    def _capture_new(self, line: int, rank: str, text: str) -> bool:
        role, _, rest = text[len("Capture "):].partition(" ")
        phase_word, _, rest = rest.partition(" ")
        if phase_word not in ("decode", "verify", "prefill") or not any(
                rest.startswith(w.strip() + " ") for w in _GRAPH_WORDS):
            return False
        begin = " begin." in rest
        if not (begin or " end." in rest):
            return False
        group = phase_word if role == "target" else f"draft {phase_word}"
        if group == "verify":
            group = "decode"  # the target's decode graphs, verifying under speculative decoding
        self._era(ERA_NEW, line)
        self.record.evidence += 1
        capture = self._group(rank, group, line)
        if begin:
            capture.backend = word_after(text, "backend=")
            # 0.5.18 prints the decode list (before the runner's filter) here; 0.5.23 at the end.
            marker = "num_tokens=" if phase_word == "prefill" else "bs="
            sizes = _list_after(text, marker)
            if sizes is not None:
                capture.sizes, capture.size_source = sorted(sizes), marker + "[...]"
        else:
            sizes = _list_after(text, "bs=")
            if sizes is not None:
                capture.sizes, capture.size_source = sorted(sizes), "bs=[...]"
            capture.seconds = float_after(text, "elapsed=")
            capture.memory_gib = float_after(text, "mem usage=")
        return True

    def _capture_legacy(self, line: int, rank: str, text: str) -> bool:
        piecewise = text.startswith("Capture piecewise") or text.startswith(
            "Capture cuda graph num tokens")
        group = "prefill" if piecewise else "decode"
        if text.startswith("Capture draft extend "):
            group = "draft extend"
        elif text.startswith("Capture draft "):
            group = "draft decode"
        self._era(ERA_PIECEWISE if piecewise else ERA_LEGACY, line)
        self.record.evidence += 1
        capture = self._group(rank, group, line)
        if " begin." in text:
            self._open = capture
        elif " end." in text:
            self._open = None
        for word in _LEGACY_WORDS:
            for marker in (f"Capture {word} bs", f"Capture {word} num tokens"):
                if text.startswith(marker):
                    sizes = int_list(text, len(marker))
                    if sizes is not None:
                        capture.sizes = sorted(sizes)
                        capture.size_source = marker[len(f"Capture {word} "):] + " [...]"
        if " end." in text:
            capture.seconds = float_after(text, "Time elapsed:")
            capture.memory_gib = float_after(text, "mem usage=")
        return True

    def _breakable_sizes(self, line: int, rank: str, text: str) -> bool:
        """The breakable prefill runner's token sizes, inside the piecewise capture lines."""
        sizes = int_list(text, text.find(BCG_SIZES_LINE) + len(BCG_SIZES_LINE))
        if sizes is None:
            return False
        if rank:
            self.record.add_rank(rank)
        self._era(ERA_PIECEWISE, line)
        self.record.hint("'[BCG] Capture num tokens' line", *BCG_RELEASES, line)
        capture = self._group(rank or self._last_rank, "prefill", line)
        capture.sizes, capture.size_source = sorted(sizes), "[BCG] Capture num tokens [...]"
        capture.backend = "breakable"
        self.record.evidence += 1
        return True

    def finish(self) -> LogRecord:
        """Choose the rank whose lines say most (rank 0 on a tie) as the record's captures,
        and note every other rank whose captured list differs from it."""
        if not self._by_rank:
            return self.record

        def known(rank: str) -> tuple[int, int, int, int, bool, str]:
            groups = self._by_rank[rank].values()
            return (-sum(c.sizes is not None for c in groups),
                    -sum(c.count is not None for c in groups),
                    -sum(c.memory_gib is not None for c in groups),
                    -len(groups), rank == "", _rank_key(rank))

        ranks = sorted(self._by_rank, key=known)
        main = self._by_rank[ranks[0]]
        self.record.captures = dict(main)
        for rank in ranks[1:]:
            for group, capture in self._by_rank[rank].items():
                mine = main.get(group)
                if capture.sizes is not None and mine is not None and mine.sizes is not None \
                        and capture.sizes != mine.sizes and len(self.record.rank_mismatch) < MAX_NOTES:
                    self.record.rank_mismatch.append(
                        f"{rank} {group}: {len(capture.sizes)} sizes, largest "
                        f"{max(capture.sizes, default=0)}")
        return self.record

    # -- launch arguments ------------------------------------------------------------------
    def _args(self, line: int, text: str) -> bool:
        body = text[len("server_args="):]
        if body.startswith("ServerArgs("):
            parsed = parse_call(body, "ServerArgs")
            source = "server_args=ServerArgs(...)"
            self.record.hint("server_args=ServerArgs(...) line", _SERVER_ARGS_CALL_FROM, _ERA_NEW_SINCE,
                             line)
        else:
            parsed = parse_mapping(body)
            source = "server_args={...}"
            self.record.hint("server_args={...} line", *SERVER_ARGS_DICT, line)
        if parsed is None:
            return False
        if self.record.args is None:
            self.record.args, self.record.args_line = parsed, line
            # Both forms print every ServerArgs field: the dataclass repr, and resolved_dict()
            # (0.5.23's _server_args_for_logging redacts values, never keys).
            self.record.args_source, self.record.args_complete = source, True
        self.record.evidence += 1
        return True


def _is_bare_bar(text: str) -> bool:
    """A tqdm bar with no label: ``100%|██████████| 23/23 [00:06<00:00,  3.51it/s]``."""
    percent, sign, _rest = text.partition("%|")
    return bool(sign) and percent.strip().isascii() and percent.strip().isdigit() \
        and len(percent) <= 4


def _rank_key(rank: str) -> str:
    """``TP0`` before ``TP1``; digits compared as numbers up to 6 places."""
    words = []
    for word in rank.split():
        prefix = word.rstrip("0123456789")
        words.append(prefix + word[len(prefix):].zfill(6))
    return " ".join(words)


def _bool_after(text: str, marker: str, start: int) -> bool | None:
    at = after(text, marker, start)
    if at < 0:
        return None
    rest = text[at:at + 7].lstrip()
    if rest.startswith("True"):
        return True
    if rest.startswith("False"):
        return False
    return None


def _list_after(text: str, marker: str) -> list[int] | None:
    at = after(text, marker)
    return None if at < 0 else int_list(text, at)


def make_reader(interval: int = 40) -> SglangReader:
    """A new reader (the plug-in part ``log_reader``)."""
    return SglangReader(interval)
