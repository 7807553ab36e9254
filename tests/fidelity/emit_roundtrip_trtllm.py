"""``--emit trtllm`` round trips through TensorRT-LLM's code, recorded.

Run by hand with the oracle (never in CI, which replays the record)::

    python tests/fidelity/emit_roundtrip_trtllm.py --oracle /path/to/trtllm_oracle

For each case of ``trtllm_cases.jsonl`` that cgconfig plans: the options YAML ``--emit
trtllm`` prints, handed to TensorRT-LLM with the case's own size flags, and what TensorRT-LLM
captures from it. Written to ``emit_roundtrip_trtllm.jsonl``; ``test_emit_roundtrip_trtllm.py``
checks that today's emission is the recorded one and that TensorRT-LLM's answer is the plan.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from compare_trtllm import load
from record_trtllm import ask

HERE = Path(__file__).parent
OUT = HERE / "emit_roundtrip_trtllm.jsonl"


def emitted(case: dict[str, Any], folder: str) -> tuple[str, list[int], list[str]] | None:
    """The emitted options text, the plan's captured decode list, and the notes (``None``
    when cgconfig refuses the case)."""
    from cgconfig import InputError, resolve_args
    from cgconfig.engines.trtllm.emit import trtllm_text

    path = Path(folder) / f"case{case['id']}.yaml"
    path.write_text(case["yaml"])
    try:
        plan = resolve_args(["trtllm-serve", "MODEL", *case["argv"],
                             "--extra_llm_api_options", str(path)])
    except InputError:
        return None
    import yaml

    text, notes = trtllm_text(plan, yaml.safe_load(case["yaml"]) or {})
    return text, plan.capture["decode"]["sizes"], notes


def recorded() -> dict[int, dict[str, Any]]:
    rows = [json.loads(line) for line in OUT.read_text().splitlines() if line.strip()]
    return {row["id"]: row for row in rows}


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--oracle", type=Path, required=True)
    args = cli.parse_args()
    rows, asks = [], []
    with tempfile.TemporaryDirectory() as folder:
        for case in load():
            got = emitted(case, folder)
            if got is None:
                continue
            rows.append({"id": case["id"], "emitted": got[0], "notes": got[2]})
            asks.append({"id": case["id"], "argv": case["argv"], "yaml": got[0]})
    answers = ask(args.oracle, asks)
    with OUT.open("w") as fh:
        for row, answer in zip(rows, answers, strict=True):
            row["answer"] = {k: answer[k] for k in ("captured", "enable_padding", "error")}
            fh.write(json.dumps(row) + "\n")
    print(f"{len(rows)} round trips -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
