"""Record the TensorRT-LLM fidelity corpus: random trtllm-serve lines answered by TensorRT-LLM's
own code.

Run by hand, never in CI (CI replays the recorded answers, ``test_fidelity_trtllm.py``)::

    python tests/fidelity/record_trtllm.py --oracle /path/to/trtllm_oracle [--n 2400] [--seed 21]

``--oracle`` is a folder with ``trtllm_oracle.py`` and its ``vendor/venv``: a harness that
execs TensorRT-LLM's unmodified texts (``serve.py`` 00209af ``get_llm_args`` and the YAML merge;
``llm_args.py`` 603c8a0a ``CudaGraphConfig`` models and validators; ``model_engine.py``
603c8a0a ``_filter_cuda_graph_batch_sizes`` and the ``PyTorchModelEngine.__init__`` statements
around it) and prints the validated ``batch_sizes``, the ``captured`` list, padding, the error and
the warnings TensorRT-LLM logs. Output: ``trtllm_cases.jsonl`` beside this file.

An empty options file is asked as ``{}``: serve.py at 00209af hands ``yaml.safe_load``'s ``None``
to a newer ``update_llm_args_with_extra_dict`` (a TypeError only the oracle's mix of commits
has); TensorRT-LLM's ``update_llm_args_with_extra_options`` maps it to ``{}``.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).parent
OUT = HERE / "trtllm_cases.jsonl"
KEPT = ("batch_sizes", "captured", "enable_padding", "max_batch_size", "error", "warnings")
_SIZES = [1, 2, 3, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512]
_MAXES = [0, 1, 2, 3, 7, 8, 16, 20, 31, 32, 33, 64, 100, 127, 128, 129, 192, 200, 256, 300,
          384, 512, 640, 1000, 1024, 2048, 4096]


def _lax(rng: random.Random, value: Any) -> Any:
    """The value, sometimes spelled as pydantic's lax mode still reads it (or does not)."""
    if rng.random() > 0.08:
        return value
    if isinstance(value, bool):
        return rng.choice(["yes", "no", "true", "off", 1, 0, "1", "maybe", 2])
    return rng.choice([str(value), float(value), f" {value} ", f"{value}.0", f"{value}.5", "x"])


def _graph(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.07:
        return None
    if r < 0.09:
        return rng.choice([False, True, [], "auto", 0])
    if r < 0.13:
        return {}
    cg: dict[str, Any] = {}
    if rng.random() < 0.5:
        cg["enable_padding"] = _lax(rng, rng.random() < 0.5)
    k = rng.random()
    if k < 0.45:
        cg["max_batch_size"] = _lax(rng, rng.choice(_MAXES))
    elif k < 0.85:
        pool = _SIZES + ([0, -1] if rng.random() < 0.1 else [])
        sizes = [rng.choice(pool) for _ in range(rng.randint(1, 6))]
        cg["batch_sizes"] = [_lax(rng, s) for s in sizes] if rng.random() < 0.1 else sizes
        if rng.random() < 0.3:
            cg["max_batch_size"] = rng.choice([max(sizes), max(sizes), 64, 128])
    elif k < 0.88:
        cg["batch_sizes"] = rng.choice([[], None])
    if rng.random() < 0.04:
        cg[rng.choice(["foo", "batch_size", "padding", "max_batch"])] = 1
    if rng.random() < 0.03:
        cg["max_batch_size"] = -1
    if rng.random() < 0.04:
        key = rng.choice(["num_tokens", "max_num_token", "seq_lens", "max_seq_len"])
        cg[key] = rng.choice([[64, 128], 64, 0, None, [0, 8]])
    if rng.random() < 0.03:
        cg["mode"] = rng.choice(["decode", "encode", "prefill"])
    return cg


def _spec(rng: random.Random) -> dict[str, Any]:
    r = rng.random()
    if r < 0.5:
        return {"decoding_type": "Eagle3", "max_draft_len": rng.choice([1, 2, 3, 4, 7])}
    if r < 0.8:
        return {"decoding_type": "MTP", "num_nextn_predict_layers": rng.choice([1, 2, 3])}
    return {"decoding_type": "Eagle", "max_draft_len": rng.choice([2, 4]),
            "max_total_draft_tokens": rng.choice([4, 8, 15])}


def rand_case(rng: random.Random) -> dict[str, Any]:
    """One trtllm-serve line: the size flags and an options file (its YAML text)."""
    argv: list[str] = []
    if rng.random() < 0.5:
        argv += ["--max_batch_size", str(rng.choice([1, 4, 8, 16, 20, 32, 50, 64, 100, 128, 256,
                                                      300, 512, 1024, 2048]))]
    if rng.random() < 0.4:
        argv += ["--max_num_tokens", str(rng.choice([0, 16, 50, 64, 100, 128, 256, 1000, 2048,
                                                     4096, 8192, 16384]))]
    doc: dict[str, Any] = {}
    if rng.random() < 0.95:
        doc["cuda_graph_config"] = _graph(rng)
        if doc["cuda_graph_config"] == {} and rng.random() < 0.5:
            del doc["cuda_graph_config"]
    if rng.random() < 0.18:
        doc["speculative_config"] = _spec(rng)
    if rng.random() < 0.06:
        doc["max_batch_size"] = _lax(rng, rng.choice([8, 32, 256]))
    if rng.random() < 0.05:
        doc["max_num_tokens"] = rng.choice([64, 512, 4096])
    if rng.random() < 0.05:
        doc["enable_attention_dp"] = True
    text = "" if not doc and rng.random() < 0.5 else yaml.safe_dump(doc, default_flow_style=True)
    return {"argv": argv, "yaml": text}


def ask(oracle: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The oracle's answers, in order (``--batch -``, the YAML inline)."""
    lines = "".join(json.dumps({"id": c["id"], "argv": c["argv"],
                                "yaml": c["yaml"] if c["yaml"].strip() else "{}"}) + "\n"
                    for c in cases)
    python = oracle / "vendor" / "venv" / "bin" / "python"
    proc = subprocess.run([str(python), str(oracle / "trtllm_oracle.py"), "--batch", "-"],
                          input=lines, capture_output=True, text=True, check=True)
    answers = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    assert [a["id"] for a in answers] == [c["id"] for c in cases], "oracle lost cases"
    return answers


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--oracle", type=Path, required=True)
    cli.add_argument("--n", type=int, default=2400)
    cli.add_argument("--seed", type=int, default=21)
    cli.add_argument("--out", type=Path, default=OUT, help="a fresh set elsewhere (agreement "
                     "on unseen cases: compare_trtllm.py --cases FILE)")
    args = cli.parse_args()
    rng = random.Random(args.seed)
    cases = [{"id": i, **rand_case(rng)} for i in range(args.n)]
    with args.out.open("w") as fh:
        for case, answer in zip(cases, ask(args.oracle, cases), strict=False):
            case["answer"] = {k: answer.get(k) for k in KEPT}
            fh.write(json.dumps(case) + "\n")
    print(f"{len(cases)} cases -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
