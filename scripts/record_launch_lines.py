#!/usr/bin/env python3
"""Record SGLang's own answer for each SGLang line in ``tests/data/launch_lines/lines.jsonl``.

Run by hand (not in CI) with the differential-test oracle, a directory holding
``sglang_oracle.py`` and its venv, which runs SGLang 0.5.23's real argparse and resolution
pipeline on a CPU machine with the GPU facts stubbed:

    python scripts/record_launch_lines.py --oracle /path/to/oracle

For every SGLang line: the entry point and ``VAR=value`` prefixes are found with
``cgconfig.engines.find_entry_point``; the model path is replaced by the oracle's generated
``config.json`` of the closest template (``MODEL_TEMPLATES`` below: the hub is offline there);
the platform, GPU memory and compute capability come from the line's ``platform`` field
(``GPUS``); a line's optional ``model_config`` patches the template with fields of the real
model (e.g. Llama-4 Scout's 10M-token context). Lines are run in one oracle batch per
(platform, environment), the prefixes set in that process's environment as SGLang would see
them. Each line's ``oracle`` field is rewritten with the options used and the answer (phases,
locked keys, error, chosen attention backend...).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cgconfig.line import find_entry_point  # noqa: E402

LINES = ROOT / "tests" / "data" / "launch_lines" / "lines.jsonl"

#: Model name pattern → the oracle's config.json template (first match wins).
MODEL_TEMPLATES: tuple[tuple[str, str], ...] = (
    (r"deepseek-(v3|r1|math-v2)|kimi-k2", "deepseek_v3"),
    (r"qwen3-vl", "qwen3_vl"),
    (r"qwen3\.[56]", "qwen3_5_moe_vl"),
    (r"qwen3-.*a\d+b|qwen3-coder-next|qwen3-next", "qwen3_moe"),
    (r"llama-2", "llama-2"),
    (r".", "llama"),
)
#: Platform → oracle GPU options: an 8x H200 node for CUDA lines, MI300X for ROCm lines.
GPUS: dict[str, list[str]] = {
    "cuda": ["--sm", "90", "--gpu-memory-gib", "141"],
    "hip": ["--gpu-memory-gib", "192"],
}
#: Flags whose value is a hub path the offline oracle cannot read: dropped with their value.
_DROP = ("--model-path", "--model", "--tokenizer-path")
_ANSWER_EXTRA = ("attention_backend", "chunked_prefill_size", "mem_fraction_static",
                 "speculative_algorithm", "speculative_num_draft_tokens", "disable_cuda_graph")


def oracle_argv(engine_argv: list[str]) -> tuple[list[str], str]:
    """The line's SGLang args with the model swapped for a template, and that template."""
    model, out, i = "", [], 0
    while i < len(engine_argv):
        token = engine_argv[i]
        name, eq, value = token.partition("=")
        if name in _DROP:
            taken = value if eq else (engine_argv[i + 1] if i + 1 < len(engine_argv) else "")
            model = model or (taken if name != "--tokenizer-path" else "")
            i += 1 if eq else 2
            continue
        if name == "--speculative-draft-model-path":
            out += [name, "@llama"]
            i += 1 if eq else 2
            continue
        out.append(token)
        i += 1
    template = next(t for pattern, t in MODEL_TEMPLATES if re.search(pattern, model.lower()))
    return out, template


def _answer(raw: dict[str, object]) -> dict[str, object]:
    extra = raw.get("extra") or {}
    assert isinstance(extra, dict)
    return {"decode": raw.get("decode"), "prefill": raw.get("prefill"), "locked": raw.get("locked"),
            "error": raw.get("error"), "error_stage": raw.get("error_stage"),
            "extra": {k: extra.get(k) for k in _ANSWER_EXTRA}}


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--oracle", required=True, help="directory with sglang_oracle.py and vendor/venv")
    args = cli.parse_args()
    python = Path(args.oracle) / "vendor" / "venv" / "bin" / "python"
    entries = [json.loads(line) for line in LINES.read_text().splitlines() if line.strip()]
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[dict[str, object]]] = {}
    for entry in entries:
        if entry["engine"] != "sglang":
            continue
        found = find_entry_point(entry["line"])
        assert found is not None, entry["id"]
        argv, template = oracle_argv(found.argv)
        options = [*GPUS[entry.get("platform", "cuda")], "--model-arch", template]
        if entry.get("model_config"):  # fields of the real model the template lacks
            options += ["--model-config", json.dumps(entry["model_config"])]
        entry["oracle"] = {"options": options, "argv": argv, "env": found.env}
        key = (entry.get("platform", "cuda"), tuple(sorted(found.env.items())))
        groups.setdefault(key, []).append(entry)
    for (platform, env), batch in groups.items():
        cases = "".join(json.dumps({"id": e["id"], "argv": [*e["oracle"]["options"],  # type: ignore[index]
                                                            *e["oracle"]["argv"]]}) + "\n"  # type: ignore[index]
                        for e in batch)
        command = [str(python), str(Path(args.oracle) / "sglang_oracle.py"), "--platform", platform,
                   "--batch", "-"]
        run = subprocess.run(command, input=cases, capture_output=True, text=True, check=True,
                             env={**os.environ, **dict(env)})
        answers = {a["id"]: a for a in map(json.loads, run.stdout.splitlines()) if a.get("id")}
        for entry in batch:
            entry["oracle"]["answer"] = _answer(answers[entry["id"]])  # type: ignore[index]
        print(f"{platform} {dict(env) or ''}: {len(batch)} lines", file=sys.stderr)
    LINES.write_text("".join(json.dumps(e) + "\n" for e in entries))


if __name__ == "__main__":
    main()
