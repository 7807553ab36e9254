"""The campaign's in-process calls: the Python API (``InputError`` family allowed) and the
runtime on the CPU build (``ValueError`` allowed; ``TypeError`` only for a plan that is not a
mapping at all, as documented). Each generator returns ``(name, call, allowed exceptions)``."""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Callable
from typing import Any

from tests.hostile.campaign_cases import CONTROL, LONE, NUMERALS, TAGS

Call = tuple[str, Callable[[], Any], tuple[type[BaseException], ...]]
WORDS = [*NUMERALS, *CONTROL, *LONE, *TAGS, "--tp-size", "--pp-size", "--gpu-memory-gib",
         "--cuda-graph-max-bs-decode", "--cuda-graph-bs-decode", "--cuda-graph-config",
         "--deployment", "--rules", "--model-path", "--dialect", "--dialect=", "vllm", "serve",
         "trtllm-serve", "python3", "-m", "sglang.launch_server", "-X", "dev", "-W", "env", "-i",
         "-u", "docker", "run", "-e", "A=1", "SGLANG_MEMORY_SAVER_CUDA_GRAPH=1",
         "--enable-memory-saver", "--chec", "--stri", "-ojson", "--strict", "--check",
         '{"decode": {"max_bs": 8}}', '{"decode": {"max_bs": 1e400}}', '{"a": [[[[1]]]]}',
         "-/python", "python", "~nosuchuser/x", "2", "8", "-1", "", " ", "\x00", "-cc",
         '{"cudagraph_capture_sizes": [1, 2]}', "--max-num-batched-tokens", "--speculative-config",
         "--extra-llm-api-options", "--json-model-override-args", '{"architectures": ["\\ud800"]}']
KEYS = ["decode", "prefill", "options", "max_bs", "bs", "backend", "sizes", "capture", "config",
        "tp_size", "gpu_memory_gib", "model_path", "phases", "schema_version", "compile_sizes",
        "enable_padding", "disable_padding", "chunked_prefill_size", "x"]


def _scalar(rng: random.Random) -> Any:
    return rng.choice([None, True, False, 0, -1, 1, 8, 2**40, 2**70, 1.5, math.inf, math.nan,
                       -0.0, 1e300, "8", "٨", "1_0", "full", "breakable", "disabled", "",
                       *CONTROL, *LONE, [], {}, (1,), b"8", {1, 2}, object()])


def _doc(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return _scalar(rng)
    if roll < 0.55:
        return [_doc(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = [rng.choice(KEYS) if rng.random() < 0.8 else _scalar(rng) for _ in range(4)]
    out: dict[Any, Any] = {}
    for key in keys[: rng.randrange(5)]:
        try:
            out[key] = _doc(rng, depth + 1)
        except TypeError:  # an unhashable key drawn as a scalar
            continue
    return out


def _argv(rng: random.Random) -> list[Any]:
    argv: list[Any] = [rng.choice(WORDS) for _ in range(rng.randrange(1, 9))]
    if rng.random() < 0.03:
        argv = [rng.choice(["-/python", "python", "-u"])] * rng.choice([5_000, 50_000])
    if rng.random() < 0.03:
        argv.append(rng.choice([None, 3, b"x", ["a"]]))
    return argv


def api_call(rng: random.Random) -> Call:
    from cgconfig import resolve_args, resolve_dict
    from cgconfig.api import add_arguments, resolve_namespace
    from cgconfig.docio import load_json_text, load_yaml_text
    from cgconfig.errors import CgConfigError
    from cgconfig.tune import histogram

    allowed: tuple[type[BaseException], ...] = (CgConfigError,)
    roll = rng.randrange(9)
    if roll <= 2:
        argv = _argv(rng)
        environ = rng.choice([None, {}, {"SGLANG_MEMORY_SAVER_CUDA_GRAPH": "1"}, {1, 2}, math.inf,
                              {"A": 1}, {1: "x"}, {"HF_HOME": "~nosuchuser/x"}, [("A", "1")]])
        return "resolve_args", lambda: resolve_args(argv, environ=environ).to_json(), allowed
    if roll == 3:
        config, facts = _doc(rng), _doc(rng)
        return "resolve_dict", lambda: resolve_dict(config, facts).to_dict(), allowed
    if roll == 4:
        indent = rng.choice([None, 0, 2, 16, 17, -1, 10**7, "\t", {"a": 1}, 2.5, True])
        phase = rng.choice(["decode", "prefill", "x", 3, None, []])

        def plan_methods() -> None:
            plan = resolve_args([])
            plan.to_json(indent=indent)
            plan.capture_sizes(phase)
        return "plan", plan_methods, allowed
    if roll == 5:
        doc = rng.choice([_doc(rng), {"schema_version": 1, "phases": {"decode": _doc(rng)}}])
        return "histogram.from_document", lambda: histogram.from_document(doc, "doc"), allowed
    if roll == 6:
        text = "".join(rng.choice(["a: ", "!!int", "010", "1_0", "- ", "[", "{", "}", "]", "\n",
                                   "&a ", "*a ", "x", ": ", "!!float", '"\\ud800"', "1e400",
                                   "  ", "?", ",", "!!timestamp", "!!python/object"])
                       for _ in range(rng.randrange(1, 20)))
        loader = rng.choice([load_yaml_text, load_json_text])
        return "load_text", lambda: loader(text, "doc"), allowed

    def namespace() -> None:
        parser = argparse.ArgumentParser()
        add_arguments(parser, facts=True)
        ns = parser.parse_args([])
        for name in rng.sample(sorted(vars(ns)), 2):
            setattr(ns, name, rng.choice([_scalar(rng), [_scalar(rng)], ["8"], "8"]))
        resolve_namespace(ns, facts=rng.choice([None, {}, _doc(rng)]))
    return "resolve_namespace", namespace, allowed


def runtime_call(rng: random.Random) -> Call:
    import torch

    from cgconfig.runtime import PhaseCapture, Slot, StaticBuffers, phase_capture

    roll = rng.randrange(5)
    if roll == 4:
        # run() raises TypeError for a size that is not an int (docs/runtime.md)
        return "PhaseRunner", _runner_call(rng), (ValueError, TypeError)
    if roll == 0:
        doc = rng.choice([_doc(rng), {"schema_version": 1, "capture": _doc(rng),
                                      "config": _doc(rng)},
                          {"capture": {"decode": {"backend": "full", "sizes": [
                              rng.choice([1, 2**40, -3, 0, 2**22, True, "4"])]}}}])
        phase = rng.choice(["decode", "prefill", "x"])
        return "phase_capture", lambda: phase_capture(doc, phase), (ValueError, TypeError)
    if roll == 1:
        sizes = rng.choice([(1, 2), (2**40,), (), (3, 1), (0,), [1], (True,), (1.5,)])
        return "PhaseCapture", lambda: PhaseCapture("decode", rng.choice(
            ["full", "breakable", "disabled", "x"]), sizes), (ValueError,)
    dtype = rng.choice([torch.int64, torch.int32, torch.bool, torch.float32, torch.uint8,
                        "int64", None])
    fields = {"trailing": rng.choice([(), (2,), (-1,), (2**40,), (2**17, 2**17), [2], (1.5,)]),
              "axis": rng.choice(["tokens", "requests", "none", 3, None]),
              "policy": rng.choice(["copy", "keep", "zero", "fill_sentinel", "fill_once", 9]),
              "pad_value": rng.choice([None, 0, 1, -1, 2**70, 1.5, math.inf, True, "x"]),
              "dim": rng.choice([0, 1, -1, 5, None])}

    def buffers() -> None:
        slot = Slot("s", dtype, **fields)  # type: ignore[arg-type]
        rows = rng.choice([1, 8, 0, -1, 2**40, 2**23, 4.5])
        device = rng.choice(["cpu", "nope", "cuda:x", "", 3])
        StaticBuffers([slot], max_tokens=rows, max_requests=4, device=device)  # type: ignore[arg-type]
    return "StaticBuffers", buffers, (ValueError,)


def _runner_call(rng: random.Random) -> Callable[[], Any]:
    """Capture a tiny decode runner on the CPU build and serve batches of hostile sizes."""
    import torch

    from cgconfig.runtime import PaddingPolicy, PhaseCapture, PhaseRunner, Slot

    sizes = tuple(sorted(set(rng.sample([1, 2, 3, 4, 8, 16], rng.randrange(1, 4)))))
    backend = rng.choice(["full", "breakable"])
    slots = [Slot("ids", torch.int64),
             Slot("lens", torch.int64, axis="requests", policy=PaddingPolicy.FILL_SENTINEL,
                  pad_value=rng.choice([1, 0, -1, 2**62]))]

    def forward(inputs: Any) -> Any:
        return inputs["ids"] + inputs["lens"]

    def run() -> None:
        runner = PhaseRunner(PhaseCapture("decode", backend, sizes), forward, slots,
                             device="cpu", progress=False)
        runner.capture()
        for _ in range(3):
            n = rng.choice([0, 1, 3, 5, 17, -1, 2**40, True, 2.0])
            rows = n if type(n) is int and 0 <= n <= 64 else 2
            batch = {"ids": rng.choice([torch.arange(rows), torch.ones(rows),
                                        torch.arange(rows + 1)]),
                     "lens": torch.full((rows,), 3)}
            runner.run(batch, n)
    return run
