"""vLLM's log lines about CUDA graphs, read into a :class:`~cgconfig.verify.record.LogRecord`.

Formats (checked against vLLM 0.33.0's source; older ones against the releases docs/verify.md
names):

* version: ``vLLM server version X`` (0.2x-0.33 ``entrypoints/common/startup.py``),
  ``vLLM API server version X`` (0.6-0.11), ``Initializing a V1 LLM engine (vX) with config: ...``
  (``v1/engine/core.py``) or ``Initializing an LLM engine (vX) with config: ...`` (V0 engine);
  the config's ``compilation_config=`` gives the front-end's capture sizes and mode;
* launch arguments: ``non-default args: {...}`` (``entrypoints/common/startup.py``);
* the worker's downgrades (``config/compilation.py: resolve_cudagraph_mode_and_sizes``):
  ``... is not supported with ...; setting cudagraph_mode=Y``, ``... Overriding to Y.``;
* ``Profiling CUDA graph memory: FULL=35 (largest=256), PIECEWISE=51 (largest=512)``,
  ``Estimated CUDA graph memory: 1.20 GiB total``, ``CUDA graph pool memory: 1.1 GiB (actual),
  1.2 GiB (estimated) ...`` (``v1/worker/gpu_model_runner.py``, ``gpu_worker.py``);
* tqdm ``Capturing CUDA graphs (decode, FULL): 100%|...| 35/35 [...]`` (0.10-0.33),
  ``Capturing CUDA graph shapes: 100%|...| 35/35`` (0.6-0.9), ``Graph capturing finished in 14 secs,
  took 0.21 GiB``; at DEBUG ``Capturing a cudagraph on (FULL,BatchDescriptor(num_tokens=8, ...))``
  (``compilation/cuda_graph.py``), one per captured size: the exact list;
* per step: ``Batchsize forward time stats (batchsize, count, median_time(ms)): [(8, 120, 5.1), ...]``
  (``forward_context.py``, ``VLLM_LOG_BATCHSIZE_INTERVAL``; counts are cumulative, so the last
  line per rank is the total) and the ``--cudagraph-metrics`` table (``compilation/cuda_graph.py:
  CUDAGraphLogging``; each table covers one interval, so tables add up).

Sizes count tokens. Every line is scanned with ``str.find``; no regular expression.
"""

from __future__ import annotations

from collections import Counter

from cgconfig.verify.args_text import parse_call, parse_mapping
from cgconfig.verify.record import MAX_STEP_SIZE, LogRecord
from cgconfig.verify.text import (
    after,
    decimal,
    float_after,
    int_after,
    int_list,
    number,
    progress,
)

ERA_V1 = "vLLM 0.10-0.33 (V1 engine)"
ERA_V1_EARLY = "vLLM 0.8-0.10.1 (V1 engine)"
ERA_V0 = "vLLM V0 engine (0.10 and older)"
#: Format → the releases that print it (oldest, newest; ``None``: still printed): the per-mode
#: bars came with 0.10.2's ``gpu_model_runner.py`` (``Capturing CUDA graphs (decode, FULL)``);
#: ``Capturing CUDA graph shapes`` is V1's bar before it and V0's; V0 (``vllm/worker/
#: model_runner.py``) was removed in 0.11; ``args: Namespace(...)`` is 0.6-0.11's
#: ``entrypoints/openai/api_server.py: run_server``.
ERA_RELEASES: dict[str, tuple[str, str | None]] = {
    ERA_V1: ("0.10.2", None), ERA_V1_EARLY: ("0.8.0", "0.10.1"), ERA_V0: ("0.1.0", "0.10.2")}
#: The releases whose log has the ``args: Namespace(...)`` line (the first and the last).
NAMESPACE_ARGS_RELEASES = ("0.6.0", "0.11.2")
_MODES = ("FULL", "PIECEWISE", "NONE")
TABLE_GAP = 8
"""Most lines in a row that are not table rows (blank, or another process's) inside a
``--cudagraph-metrics`` table before the table counts as ended."""
_VERSION_MARKERS = ("vLLM server version ", "vLLM API server version ",
                    "Initializing a V1 LLM engine (v", "Initializing an LLM engine (v",
                    "Initializing a V0 LLM engine (v")
_V0_CAPTURE = ("Capturing the model for CUDA graphs", "CUDA graphs can take additional")
_EAGER_WORDS = ("Cudagraph is disabled under eager mode", "Enforce eager set")


class VllmReader:
    """Feed it the lines of one log, in order."""

    engine = "vllm"

    def __init__(self) -> None:
        self.record = LogRecord(engine="vllm")
        self._v1: bool | None = None
        self._shapes: tuple[int, int] | None = None
        self._debug_sizes: dict[str, set[int]] = {}
        self._forward: dict[str, Counter[int]] = {}
        self._table: bool = False
        self._table_gap = 0
        self._metric_rows: Counter[tuple[int, bool]] = Counter()

    def feed(self, line: int, rank: str, text: str) -> bool:
        """Read one message (prefix removed); returns whether it was a vLLM line."""
        if self._table:
            if text.startswith("|"):
                self._table_gap = 0
                return self._metric_row(text)
            # A blank line, or a line another process wrote between two rows, does not end
            # the table; TABLE_GAP such lines in a row do (the rows are checked one by one).
            self._table_gap += 1
            self._table = self._table_gap <= TABLE_GAP
        if "Capturing CUDA graph" in text or "Capturing cudagraphs for decoding" in text:
            return self._tqdm(line, text)
        if any(words in text for words in _V0_CAPTURE):
            # V0's ``worker/model_runner.py: capture_model`` (0.4-0.6): decode graphs only.
            self._v1 = False
            self._set_era(ERA_V0, line)
            self.record.capture("decode FULL", line).backend = "full"
            return self._seen()
        if any(words in text for words in _EAGER_WORDS):
            # 0.1x-0.33 ``config/vllm.py``: the server runs without CUDA graphs.
            self.record.note_fact("enforce_eager", True, line, text)
            self.record.disabled.setdefault("all", text.strip()[:120])
            return self._seen()
        if "Free memory on device " in text:
            return self._free_memory(line, text)
        if "Capturing a cudagraph for shape " in text:
            # Older piecewise backend's DEBUG line (``compilation/cuda_piecewise_backend.py``).
            size = int_after(text, "Capturing a cudagraph for shape ")
            if size is not None and size <= MAX_STEP_SIZE:
                self._debug_sizes.setdefault("mixed PIECEWISE", set()).add(size)
            return self._seen()
        if "Capturing a cudagraph on (" in text:
            return self._debug_capture(line, text)
        if "Graph capturing finished in " in text:
            self.record.total_seconds = float_after(text, "Graph capturing finished in ")
            took = float_after(text, ", took ")
            if took is not None:
                self.record.total_memory_gib = took
            return self._seen()
        if text.startswith("Profiling CUDA graph memory:") or " Profiling CUDA graph memory:" in text:
            return self._profiling(line, text)
        if "non-default args:" in text:
            return self._args(line, text, parse_mapping(text[after(text, "non-default args:"):]),
                              "non-default args: {...}")
        if text.startswith("args: Namespace(") or " args: Namespace(" in text:
            body = text[after(text, "args: "):]
            self.record.hint("args: Namespace(...) line", *NAMESPACE_ARGS_RELEASES, line)
            return self._args(line, text, parse_call(body, "Namespace"), "args: Namespace(...)")
        for marker in _VERSION_MARKERS:
            if marker in text:
                return self._version(line, text, marker)
        if "\u2588  version " in text:  # the start-up banner (0.15+): "█ ▀▄▀ █  version 0.17.0"
            return self._version(line, text, "\u2588  version ")
        if text.startswith("- Capture sizes:"):
            sizes = int_list(text, len("- Capture sizes:"))
            if sizes and self.record.configured_sizes is None:
                self.record.configured_sizes, self.record.configured_line = sorted(set(sizes)), line
            return self._seen()
        if "CUDAGraph Config Settings" in text:
            return self._seen()
        if text.startswith("| Unpadded Tokens"):
            self._table, self._table_gap = True, 0
            return self._seen()
        if "setting cudagraph_mode=" in text or (
                "cudagraph" in text.lower() and "Overriding to " in text):
            self.record.note_downgrade(line, text)
            return self._seen()
        if "CUDA graph memory: " in text and " first-capture + (" in text:
            return self._mode_estimate(text)
        if "Estimated CUDA graph memory:" in text:
            value = float_after(text, "Estimated CUDA graph memory:")
            if value is not None:
                self.record.estimate_gib["total"] = value
            return self._seen()
        if "CUDA graph pool memory:" in text:
            actual = float_after(text, "CUDA graph pool memory:")
            estimated = float_after(text, "(actual), ")
            if actual is not None:
                self.record.estimate_gib["pool actual"] = actual
            if estimated is not None:
                self.record.estimate_gib["pool estimated"] = estimated
            return self._seen()
        if "Skipping CUDA graph capture" in text:
            self.record.disabled["all"] = "Skipping CUDA graph capture (cudagraph_mode NONE)"
            return self._seen()
        if "Batchsize forward time stats" in text:
            return self._forward_stats(rank, text)
        return False

    def _seen(self) -> bool:
        self.record.evidence += 1
        return True

    def _version(self, line: int, text: str, marker: str) -> bool:
        at = after(text, marker)
        end = at
        while end < len(text) and end - at < 40 and (text[end].isascii() and (
                text[end].isalnum() or text[end] in ".+-_")):
            end += 1
        version = text[at:end].rstrip(".")
        if version and version[0].isdigit() and self.record.version is None:
            self.record.version, self.record.version_line = version, line
        if marker.startswith("Initializing a V1"):
            self._v1 = True
        elif marker.startswith(("Initializing an LLM", "Initializing a V0")):
            self._v1 = False
        if marker.startswith("Initializing") and "enforce_eager=True" in text:
            self.record.note_fact("enforce_eager", True, line, "enforce_eager=True (engine config)")
        config_at = after(text, "compilation_config=")
        if config_at >= 0:
            self._compilation(line, parse_mapping(text[config_at:]))
        return self._seen()

    def _compilation(self, line: int, config: dict[str, object] | None) -> None:
        """The front-end's compilation config: the sizes it configured (before the worker)."""
        if not config:
            return
        mode = config.get("cudagraph_mode")
        if isinstance(mode, str) and mode.endswith("NONE"):
            self.record.disabled.setdefault("all", "compilation_config cudagraph_mode NONE")
        sizes = config.get("cudagraph_capture_sizes")
        if isinstance(sizes, list) and all(isinstance(s, int) for s in sizes):
            self.record.configured_sizes = sorted(set(sizes))
            self.record.configured_line = line

    def _set_era(self, era: str, line: int) -> None:
        self.record.era = self.record.era or era
        oldest, newest = ERA_RELEASES[era]
        self.record.hint(f"format '{era}'", oldest, newest, line)

    def _free_memory(self, line: int, text: str) -> bool:
        """``Free memory on device (15.32/15.55 GiB) on startup`` (0.33.0
        ``v1/worker/gpu_worker.py``; ``v1/worker/utils.py`` names the device first:
        ``Free memory on device cuda:0 (…/… GiB)``): the device's total memory."""
        at = text.find("(", after(text, "Free memory on device "))
        if at < 0 or at - text.find("Free memory on device ") > 48:
            return False
        slash = text.find("/", at)
        total, _end = decimal(text, slash + 1) if slash >= 0 else (None, 0)
        if total is None or not 0 < total < 1 << 20:
            return False
        self.record.note_fact("gpu_memory_gib", total, line,
                              text[text.find("Free memory on device"):][:60])
        return self._seen()

    def _tqdm(self, line: int, text: str) -> bool:
        if "Capturing cudagraphs for decoding" in text:
            self._v1 = False  # V0's worker/model_runner.py announcement; the shapes bar follows
            self._set_era(ERA_V0, line)
            return self._seen()
        done_total = progress(text)
        if "Capturing CUDA graphs (" in text:
            at = after(text, "Capturing CUDA graphs (")
            close = text.find(")", at)
            if close < 0:
                return False
            kind, comma, mode = text[at:close].partition(", ")
            if not comma:
                # Model Runner V2 (``v1/worker/gpu/cudagraph_utils.py``) names the mode only:
                # its FULL graphs are the uniform-decode ones, PIECEWISE the mixed ones.
                kind, mode = ("decode" if kind.strip() == "FULL" else "mixed"), kind
            if mode.strip() not in _MODES:
                return False
            group = f"{'decode' if kind.strip() == 'decode' else 'mixed'} {mode.strip()}"
            self._set_era(ERA_V1, line)
        elif "Capturing CUDA graph shapes" in text:
            group = "decode FULL" if self._v1 is False else "mixed PIECEWISE"
            self._set_era(ERA_V0 if self._v1 is False else ERA_V1_EARLY, line)
        else:
            return False
        capture = self.record.capture(group, line)
        capture.backend = _backend(group.split()[-1])
        if done_total is not None:
            done, total = done_total
            capture.count = max(capture.count or 0, total)
            capture.done = max(capture.done or 0, done)
        return self._seen()

    def _debug_capture(self, line: int, text: str) -> bool:
        at = after(text, "Capturing a cudagraph on (")
        mode = text[at:text.find(",", at)].strip() if text.find(",", at) > 0 else ""
        tokens = int_after(text, "num_tokens=", at)
        if mode not in _MODES or tokens is None:
            return False
        uniform = "uniform=True" in text or "uniform_decode=True" in text
        group = f"{'decode' if uniform else 'mixed'} {mode}"
        if tokens <= MAX_STEP_SIZE:
            self._debug_sizes.setdefault(group, set()).add(tokens)
        self.record.capture(group, line).backend = _backend(mode)
        return self._seen()

    def _profiling(self, line: int, text: str) -> bool:
        body = text[after(text, "Profiling CUDA graph memory:"):]
        for part in body.split(", "):
            name, eq, rest = part.strip().partition("=")
            if not eq or name not in _MODES:
                continue
            count, end = number(rest)
            largest = int_after(rest, "(largest=", end)
            if count is None:
                continue
            # FULL descriptors are the uniform-decode ones under FULL_AND_PIECEWISE and
            # FULL_DECODE_ONLY; the comparer maps a mode to the plan's phase.
            capture = self.record.capture(f"profiled {name}", line)
            capture.backend, capture.count, capture.largest = _backend(name), count, largest
            capture.size_source = "Profiling CUDA graph memory"
        self._set_era(ERA_V1, line)
        return self._seen()

    def _mode_estimate(self, text: str) -> bool:
        """DEBUG ``Estimated FULL CUDA graph memory: 812.00 MiB first-capture + (35-1) x
        4.00 MiB per-graph`` (``v1/worker/gpu_model_runner.py``, 0.33.0)."""
        at = after(text, "Estimated ")
        mode = text[at:text.find(" ", at)] if at >= 0 else ""
        first = float_after(text, "CUDA graph memory:")
        count = int_after(text, "first-capture + (")
        close = text.find(")", after(text, "first-capture + ("))
        per = None
        for sign in (" × ", " x ", " * "):
            found = text.find(sign, close)
            if close >= 0 and found >= 0:
                per = float_after(text, sign, close)
                break
        if mode not in _MODES or first is None or per is None or count is None:
            return False
        self.record.estimate_gib[f"{mode} first graph"] = first / 1024
        self.record.estimate_gib[f"{mode} per further graph"] = per / 1024
        return self._seen()

    def _args(self, line: int, text: str, parsed: dict[str, object] | None, source: str) -> bool:
        if parsed is None:
            return False
        if self.record.args is None:
            self.record.args, self.record.args_line, self.record.args_source = (
                dict(parsed), line, source)
        return self._seen()

    def _forward_stats(self, rank: str, text: str) -> bool:
        at = after(text, "):")
        if at < 0:
            return False
        counts: Counter[int] = Counter()
        i = text.find("(", at)
        while i >= 0:
            close = text.find(")", i)
            if close < 0:
                break
            fields = text[i + 1:close].split(",")
            if len(fields) >= 2:
                size, _end = number(fields[0].strip())
                count, _end2 = number(fields[1].strip())
                if size is not None and count is not None:
                    counts[size] += count
            i = text.find("(", close)
        if rank in self._forward or len(self._forward) < 1024:
            self._forward[rank] = counts  # cumulative: the last line of a rank is its total
        return self._seen()

    def _metric_row(self, text: str) -> bool:
        cells = [c.strip() for c in text.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0].startswith("-"):
            return self._seen()
        unpadded, padded, paddings, count = (_whole(cells[i]) for i in (0, 1, 2, 4))
        if unpadded is None or padded is None or count is None or cells[3] not in _MODES \
                or paddings != padded - unpadded:
            return self._seen()  # not a row vLLM writes: padded = unpadded + paddings
        self._metric_rows[(unpadded, cells[3] != "NONE")] += count
        return self._seen()

    def finish(self) -> LogRecord:
        """Fold the exact DEBUG lists, the profiled counts and the step counts in."""
        record = self.record
        for group, sizes in self._debug_sizes.items():
            capture = record.capture(group, 0)
            if capture.count is not None and len(sizes) < capture.count:
                # An excerpt with some of the DEBUG lines: the bar's count stands.
                capture.size_source = f"{len(sizes)} of {capture.count} DEBUG capture lines"
                continue
            capture.sizes, capture.size_source = sorted(sizes), "Capturing a cudagraph on (...)"
        if self._metric_rows:
            steps = record.steps_of("mixed", "tokens")
            for (size, graph), count in self._metric_rows.items():
                steps.add(size, graph, count)
        elif self._forward:
            steps = record.steps_of("mixed", "tokens")
            for counts in self._forward.values():
                for size, count in counts.items():
                    steps.add(size, None, count)
        return record


def _whole(cell: str) -> int | None:
    """A table cell that is one ASCII integer and nothing else, or ``None``."""
    value, end = number(cell)
    return value if end == len(cell) else None


def _backend(mode: str) -> str | None:
    return {"FULL": "full", "PIECEWISE": "breakable", "NONE": "disabled"}.get(mode)


def make_reader(interval: int = 40) -> VllmReader:
    """A new reader (the plug-in part ``log_reader``); ``interval`` is SGLang's decode-log
    interval, which this engine's log does not have."""
    return VllmReader()
