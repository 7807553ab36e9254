"""Facts a log prints, turned into launch words the plan is resolved with.

A log that prints the GPU's memory (vLLM ``Free memory on device (15.32/15.55 GiB)``, SGLang
``Load weight begin. avail mem=…``, TensorRT-LLM ``device total memory 119.70 GiB``), that the
server ran eagerly (vLLM ``enforce_eager=True``) or TensorRT-LLM's resolved
``PyTorchConfig(… cuda_graph_padding_enabled=True …)`` replaces the default the plan would
otherwise take. A fact the launch line already states is left to the line (what the user gave
wins); each one used is named in the report.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from cgconfig.safe_write import write_text
from cgconfig.verify.record import Fact, LogRecord

#: Fact → the cgconfig or engine flag that states it on a launch line.
FLAGS = {"gpu_memory_gib": "--gpu-memory-gib", "enforce_eager": "--enforce-eager"}
#: TensorRT-LLM facts that go into an options file (``cuda_graph_config``'s keys).
TRTLLM_KEYS = {"cuda_graph_padding": "enable_padding",
               "cuda_graph_max_batch_size": "max_batch_size"}
_OPTIONS_FLAGS = ("--extra_llm_api_options", "--extra-llm-api-options", "--config",
                  "--trtllm-options")


def _given(argv: list[str], flag: str) -> bool:
    return any(t == flag or t.startswith(flag + "=") for t in argv)


#: How a report names the options file made from the log's facts (it is gone after the call).
FROM_LOG = "(cuda_graph_config from the log)"
_FOLDER_PREFIX = "cgconfig-verify-"


def for_display(argv: list[str]) -> list[str]:
    """``argv`` with the options file made from the log's facts named, not its passing path."""
    return [FROM_LOG if _FOLDER_PREFIX in t and t.endswith("options.json") else t for t in argv]


def describe(fact: Fact) -> str:
    """One line for the report: what was read, and where."""
    return f"{fact.name}={fact.value} (log line {fact.line}: {fact.text})"


@contextmanager
def applied(record: LogRecord, argv: list[str]) -> Iterator[tuple[list[str], list[Fact]]]:
    """``argv`` with the log's facts added (the facts used with it); a TensorRT-LLM options
    file it needs lives in a private directory for the duration of the block."""
    words: list[str] = []
    used: list[Fact] = []
    for name, flag in FLAGS.items():
        fact = record.facts.get(name)
        if fact is None or _given(argv, flag):
            continue
        if name == "enforce_eager":
            if record.engine != "vllm" or fact.value is not True:
                continue
            words.append(flag)
        else:
            # Plain decimals (never an exponent, which the numeric parser refuses).
            words.extend([flag, f"{float(fact.value):.2f}".rstrip("0").rstrip(".")])
        used.append(fact)
    options = {key: record.facts[name] for name, key in TRTLLM_KEYS.items()
               if name in record.facts}
    if record.engine != "trtllm" or not options or any(_given(argv, f) for f in _OPTIONS_FLAGS):
        yield [*argv, *words], used
        return
    with tempfile.TemporaryDirectory(prefix=_FOLDER_PREFIX) as folder:
        path = os.path.join(folder, "options.json")
        document = {"cuda_graph_config": {key: fact.value for key, fact in options.items()}}
        write_text(path, json.dumps(document), where="verify's options file")
        yield [*argv, *words, "--extra_llm_api_options", path], [*used, *options.values()]
