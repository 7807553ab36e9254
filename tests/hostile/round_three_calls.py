"""Round three's in-process families: ``cgconfig.api`` calls and CPU runtime calls, from a seed.

``python -m tests.hostile.round_three_calls api|runtime N SEED`` prints ``{family: {verdict:
count}}`` as JSON (``round_three.py`` runs it under resource limits). Clean for the API is a
plan or a :class:`~cgconfig.errors.CgConfigError`; for the runtime a result or the exceptions
docs/runtime.md documents (``TypeError``, ``ValueError``, ``KeyError``; ``RuntimeError`` for a
runner used before capture), with the forward never seeing a batch the checks should refuse.
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from tests.hostile import round_three_cases as cases

VALUES: list[Any] = [None, True, False, 0, 1, -1, 2, 8, 2**31, 2**64, 1.5, math.nan, math.inf,
                     -0.0, "", "1", "full", "breakable", "disabled", "auto", "\x1b[2J", "\ud800",
                     [], [1, 2, 4], [0], [-1], ["1"], [1.0, 2.0], {}, {"a": 1}, b"x", (1, 2),
                     [True], "8", " 8", "٨", 10**400]


def _value(rng: random.Random, depth: int = 0) -> Any:
    if depth < 2 and rng.random() < 0.1:
        return {rng.choice(["decode", "prefill", "x", "max_bs", ""]): _value(rng, depth + 1)}
    return rng.choice(VALUES)


def api_calls(rng: random.Random, n: int) -> Callable[[], Any]:
    """One random API call."""
    from cgconfig import api
    from cgconfig.fields.generated import SPECS

    keys = [spec.key for spec in SPECS]
    facts = ["tp_size", "pp_size", "dp_size", "gpu_memory_gib", "gpu_sm", "model_arch",
             "model_path", "device", "speculative_algorithm", "enable_dp_attention", "x"]
    kind = rng.randrange(5)
    if kind == 0:  # argv from the CLI families, as a library receives it
        family = rng.choice(list(cases.FAMILIES))
        case = next(cases.FAMILIES[family](rng, 1))
        argv = [a for a in case.args if a not in ("resolve", "-o", "json")]
        return lambda: api.resolve_args(argv, environ={k: v for k, v in case.env.items()})
    if kind == 1:
        config: dict[str, Any] = {}
        for key in rng.sample(keys, rng.randrange(0, 4)):
            phase, _, leaf = key.partition(".")
            config.setdefault(phase, {})[leaf] = _value(rng)
        fact_values = {f: _value(rng) for f in rng.sample(facts, rng.randrange(0, 3))}
        return lambda: api.resolve_dict(config, fact_values, strict=rng.random() < 0.2)
    if kind == 2:
        environ = {rng.choice(["CGCONFIG_ENGINE_VERSION", "VLLM_USE_V2_MODEL_RUNNER",
                               "SGLANG_X", "A"]): _value(rng)}
        return lambda: api.resolve_args(["vllm", "serve", "m"], environ=environ)
    if kind == 3:
        argv = [rng.choice(["--tp", "--model-arch", "--gpu-sm", "--cuda-graph-bs", "x"]),
                _value(rng)]
        return lambda: api.resolve_args(argv)
    return lambda: api.resolve_dict(_value(rng), _value(rng))


def run_api(n: int, seed: int) -> dict[str, Counter[str]]:
    """``n`` API calls; verdict counts."""
    from cgconfig.errors import CgConfigError

    rng = random.Random(seed)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for _ in range(n):
        call = api_calls(rng, n)
        counts["api"]["cases"] += 1
        try:
            call()
            counts["api"]["clean"] += 1
        except CgConfigError as error:
            line = str(error)
            ok = "\n" not in line and not cases.RAW_CONTROL_TEXT.search(line)
            counts["api"]["clean" if ok else f"other: message {line[:120]!r}"] += 1
        except Exception as error:
            counts["api"][f"traceback: {type(error).__name__}: {str(error)[:120]}"] += 1
    return counts


def run_runtime(n: int, seed: int) -> dict[str, Counter[str]]:
    """``n`` runner calls on CPU torch, each on a random runner; verdict counts."""
    import torch

    from cgconfig.runtime.buffers import Axis, PaddingPolicy, Slot
    from cgconfig.runtime.checks import _lossless as lossless
    from cgconfig.runtime.plan_view import PhaseCapture
    from cgconfig.runtime.runner import PhaseRunner

    rng = random.Random(seed)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    dtypes = [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool]
    seen_bad: list[str] = []

    def forward(inputs: Mapping[str, Any]) -> Any:
        for slot in slots:
            value = inputs.get(slot.name)
            # The batch's own tensors reach an eager forward (docs/runtime.md): a lossless
            # dtype is fine there, a lossy one or a tensor without data is not.
            if not isinstance(value, torch.Tensor) or value.is_meta or not lossless(
                    value.dtype, slot.dtype):
                seen_bad.append(slot.name)
        return next(iter(inputs.values()))

    for _ in range(n):
        slots = [Slot(f"s{k}", rng.choice(dtypes), trailing=rng.choice([(), (2,), (1, 3)]),
                      policy=rng.choice([PaddingPolicy.COPY, PaddingPolicy.ZERO]))
                 for k in range(rng.randrange(1, 4))]
        if rng.random() < 0.2:
            slots.append(Slot("lens", torch.int64, axis=Axis.REQUESTS,
                              policy=PaddingPolicy.FILL_SENTINEL, pad_value=1))
        backend = rng.choice(["disabled", "full", "breakable"])
        sizes = () if backend == "disabled" else tuple(sorted(rng.sample(range(1, 17), 3)))
        size: Any = rng.choice([1, 2, 3, 5, 16, 40, 0, -1, 2.0, True, "3", None])
        counts["runtime"]["cases"] += 1
        try:
            runner = PhaseRunner(PhaseCapture("decode", backend, sizes), forward, slots,
                                 device="cpu", progress=False)
            runner.capture()
            batch: Any = {}
            rows = size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 \
                else 3
            for slot in slots:
                shape = (rows, *slot.trailing)
                value: Any = torch.zeros(shape, dtype=slot.dtype)
                mutation = rng.randrange(10)
                if mutation == 0:
                    value = torch.zeros(shape, dtype=slot.dtype, device="meta")
                elif mutation == 1:
                    value = torch.zeros(shape, dtype=rng.choice(dtypes))
                elif mutation == 2:
                    value = rng.choice([None, "x", 3, [0] * rows])
                elif mutation == 3:
                    value = torch.zeros((rows + 1, *slot.trailing), dtype=slot.dtype)
                batch[slot.name] = value
            if rng.random() < 0.05:
                batch = rng.choice([None, [], "batch"])
            elif rng.random() < 0.05 and isinstance(batch, dict):
                batch.pop(next(iter(batch)), None)
            if rng.random() < 0.5 and rows == size and rows > 0:  # let the fast path remember
                runner.run({slot.name: torch.zeros((rows, *slot.trailing), dtype=slot.dtype)
                            for slot in slots}, size)
            seen_bad.clear()
            runner.run(batch, size)
            counts["runtime"]["clean" if not seen_bad else
                              f"misread: forward saw bad slot {seen_bad[0]} ({backend})"] += 1
        except (TypeError, ValueError, KeyError) as error:
            counts["runtime"]["clean" if not seen_bad else
                              f"misread: forward ran before {type(error).__name__}"] += 1
        except Exception as error:
            counts["runtime"][f"traceback: {type(error).__name__}: {str(error)[:100]} "
                              f"({backend})"] += 1
    return counts


def main() -> None:
    """Entry point for the worker subprocess."""
    kind, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    counts = run_api(n, seed) if kind == "api" else run_runtime(n, seed)
    print(json.dumps({family: dict(c) for family, c in counts.items()}))


if __name__ == "__main__":
    main()
