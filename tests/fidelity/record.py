"""Record the fidelity corpus: random inputs answered by the engines' own resolution code.

Run by hand, never in CI (CI replays the recorded answers)::

    python tests/fidelity/record.py --oracle /path/to/oracle [--sglang 3200] [--vllm 1200] [--seed 2026]
    python tests/fidelity/record.py --oracle /path/to/oracle --append-sglang 300 --seed 2027 --focus refusals
    python tests/fidelity/record.py --oracle /path/to/oracle --sglang-version 0.5.20 --sglang 400 --seed 2031
    python tests/fidelity/record.py --oracle ORACLE --sglang-version 0.5.20 --heldout --sglang 300 --seed 5100
    python tests/fidelity/record.py --oracle ORACLE --sglang-version 0.5.20 --heldout --sglang 240 \
        --checks 120 --seed 7300 --out tests/fidelity/sglang_fresh_0.5.20.jsonl
    python tests/fidelity/record.py --oracle ORACLE --sglang-version 0.5.20 --heldout --sglang 200 \
        --checks 100 --seed 8600 --out tests/fidelity/sglang_fresh3_0.5.20.jsonl
      (ORACLE with the start-up stage: the decode runner's get_batch_sizes_to_capture after
      check_server_args, so its start-up refusals are SGLang's answer; docs/fidelity.md)
    python tests/fidelity/record.py --oracle /path/to/oracle --answer tests/fidelity/sglang_classes.jsonl

``--oracle`` is a folder with ``sglang_oracle.py`` and ``vllm_oracle.py``: harnesses that import
the unmodified SGLang 0.5.23 and vLLM 0.33.0 packages on a CPU machine, stub only the GPU facts
(device count, compute capability, memory), and print the resolved ``cuda_graph_config`` (SGLang:
``ServerArgs.resolve_once`` + ``check_server_args``) or the resolved ``cudagraph_mode`` and
capture sizes (vLLM: ``CompilationConfig`` + ``VllmConfig._set_cudagraph_sizes`` +
``resolve_cudagraph_mode_and_sizes``). Output: ``sglang_cases_<release>.jsonl`` and
``vllm_compilation_cases_<release>.jsonl`` beside this file (the release the oracle answered as,
``compare.CORPUS_RELEASE`` for the main corpora), one case per line with its ``answer``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from compare import corpus_file
from generate import generate

HERE = Path(__file__).parent
EXTRA_KEPT = ("chunked_prefill_size", "attention_backend", "prefill_attention_backend",
              "decode_attention_backend", "mem_fraction_static", "speculative_num_draft_tokens",
              "max_running_requests", "device")


def sglang_oracle_argv(case: dict[str, Any]) -> list[str]:
    """The oracle's options for the case's machine and model, then the launch line."""
    return ["--gpu-memory-gib", str(case["gpu_memory_gib"]), "--sm", str(case["sm"]),
            "--model-arch", case["model"], *case["argv"]]


def vllm_oracle_argv(case: dict[str, Any]) -> list[str]:
    argv = ["--cudagraph-mode", case["cudagraph_mode"], "--support", case["support"],
            "--num-spec-tokens", str(case["num_spec_tokens"]),
            "--splitting-ops-attention", case["splitting_ops_attention"],
            "--compilation-mode", case["compilation_mode"],
            "--max-num-seqs", str(case["max_num_seqs"]),
            "--max-num-batched-tokens", str(case["max_num_batched_tokens"])]
    if "capture_sizes" in case:
        argv += ["--capture-sizes", ",".join(map(str, case["capture_sizes"]))]
    if "max_capture_size" in case:
        argv += ["--max-capture-size", str(case["max_capture_size"])]
    if case["blackwell"]:
        argv.append("--blackwell")
    if case["enforce_eager"]:
        argv.append("--enforce-eager")
    return argv


def _trim_sglang(answer: dict[str, Any]) -> dict[str, Any]:
    out = {k: answer.get(k) for k in ("decode", "prefill", "locked", "error")}
    if answer.get("error_stage"):
        out["error_stage"] = answer["error_stage"]
    out["extra"] = {k: v for k, v in (answer.get("extra") or {}).items() if k in EXTRA_KEPT}
    out["warnings"] = [line[:300] for line in answer.get("log", []) if line.startswith("WARNING")][:8]
    return out


def _trim_vllm(answer: dict[str, Any]) -> dict[str, Any]:
    keep = ("mode", "sizes", "max_capture_size", "error", "mode_after_init", "sizes_after_init")
    return {k: answer.get(k) for k in keep}


def _ask(python: str, script: Path, cases: list[tuple[int, list[str]]], pre: list[str]) -> dict[int, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        for cid, argv in cases:
            fh.write(json.dumps({"id": cid, "argv": argv}) + "\n")
    proc = subprocess.run([python, str(script), *pre, "--batch", fh.name], capture_output=True,
                          text=True, check=True, cwd=script.parent)
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return {a["id"]: a for a in answers}


def _answer_sglang(oracle: Path, python: str, cases: list[dict[str, Any]],
                   version: str | None = None) -> None:
    """Ask the SGLang oracle (one process per platform; ``version``: that release's code,
    ``--sglang-version``) and store each case's ``answer``."""
    answers: dict[int, Any] = {}
    pre = ["--sglang-version", version] if version else []
    for platform in ("cuda", "hip", "xpu", "cpu"):
        mine = [(c["id"], sglang_oracle_argv(c)) for c in cases if c["platform"] == platform]
        if mine:
            answers.update(_ask(python, oracle / "sglang_oracle.py", mine,
                                [*pre, "--platform", platform]))
    for case in cases:
        case["answer"] = _trim_sglang(answers[case["id"]])


def record_sglang(oracle: Path, python: str, count: int, seed: int) -> None:
    cases = generate("sglang", count, seed)
    _answer_sglang(oracle, python, cases)
    with open(corpus_file("sglang"), "w") as out:
        for case in cases:
            out.write(json.dumps(case, sort_keys=True) + "\n")


def append_sglang(oracle: Path, python: str, count: int, seed: int, focus: str | None) -> None:
    """Append ``count`` new cases (ids after the last recorded one) to the main SGLang corpus."""
    path = corpus_file("sglang")
    with open(path) as fh:
        last = max(json.loads(line)["id"] for line in fh)
    cases = generate("sglang", count, seed, first_id=last + 1, focus=focus)
    for case in cases:
        case["batch"] = f"seed {seed}" + (f", focus {focus}" if focus else "")
    _answer_sglang(oracle, python, cases)
    with open(path, "a") as out:
        for case in cases:
            out.write(json.dumps(case, sort_keys=True) + "\n")


def version_corpus(version: str) -> Path:
    """The corpus file of another SGLang release (``sglang_cases_<version>.jsonl``)."""
    return corpus_file(f"sglang@{version}")


def record_sglang_version(oracle: Path, python: str, version: str, count: int, seed: int) -> None:
    """Record ``count`` cases answered by SGLang ``version``'s own code into its corpus file.

    The inputs are the general generator's (SGLang 0.5.23's flags): a flag the release lacks
    is that release's argparse refusal, which cgconfig must report as well."""
    cases = generate("sglang", count, seed)
    for case in cases:
        case["batch"] = f"seed {seed}, SGLang {version}"
    _answer_sglang(oracle, python, cases, version)
    with open(version_corpus(version), "w") as out:
        for case in cases:
            out.write(json.dumps(case, sort_keys=True) + "\n")


def heldout_corpus(version: str) -> Path:
    """The held-out corpus of an SGLang release (``sglang_heldout_<version>.jsonl``): fresh
    lines recorded after the code that answers them was written."""
    return HERE / f"sglang_heldout_{version}.jsonl"


def record_heldout(oracle: Path, python: str, version: str, count: int, seed: int,
                   out: Path | None = None, own_flags: bool = False, checks: int = 0) -> None:
    """Record ``count`` fresh cases answered by SGLang ``version``'s own code: two thirds from
    the general generator, one third drawing the flags that differ between releases
    (``focus="releases"``), then ``checks`` more drawing the start-up checks of issue #31
    (``focus="startupchecks"``, seed + 2); written to :func:`heldout_corpus` (or ``out``). ``own_flags``:
    each line rewritten into the release's own flags (``release_lines.release_case``, for the
    releases before 0.5.19, whose users write their own spellings)."""
    general = count - count // 3
    cases = generate("sglang", general, seed)
    for case in cases:
        case["batch"] = f"seed {seed}, SGLang {version}, held out"
    more = generate("sglang", count - general, seed + 1, first_id=general, focus="releases")
    for case in more:
        case["batch"] = f"seed {seed + 1}, focus releases, SGLang {version}, held out"
    cases += more
    if checks:
        drawn = generate("sglang", checks, seed + 2, first_id=count, focus="startupchecks")
        for case in drawn:
            case["batch"] = f"seed {seed + 2}, focus startupchecks, SGLang {version}, held out"
        cases += drawn
    if own_flags:
        import random

        from release_lines import release_case

        rng = random.Random(seed + 2)
        cases = [release_case(case, version, rng) for case in cases]
        for case in cases:
            del case["engine_version"]  # the corpus file names the release
            case["batch"] += ", in its own flags"
    _answer_sglang(oracle, python, cases, version)
    with open(out or heldout_corpus(version), "w") as fh:
        for case in cases:
            fh.write(json.dumps(case, sort_keys=True) + "\n")


def answer_named(oracle: Path, python: str, path: Path) -> None:
    """Answer every case of a hand-written SGLang case file (``sglang_classes.jsonl``: named
    classes, one case a line, ``answer`` absent or stale) and write it back with the answers."""
    with open(path) as fh:
        cases = [json.loads(line) for line in fh if line.strip()]
    _answer_sglang(oracle, python, cases)
    with open(path, "w") as out:
        for case in cases:
            out.write(json.dumps(case, sort_keys=True) + "\n")


def record_vllm(oracle: Path, python: str, count: int, seed: int) -> None:
    cases = generate("vllm", count, seed)
    answers = _ask(python, oracle / "vllm_oracle.py", [(c["id"], vllm_oracle_argv(c)) for c in cases], [])
    with open(corpus_file("vllm"), "w") as out:
        for case in cases:
            case["answer"] = _trim_vllm(answers[case["id"]])
            out.write(json.dumps(case, sort_keys=True) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, required=True)
    parser.add_argument("--python", help="the oracle's interpreter (default: ORACLE/vendor/venv/bin/python)")
    parser.add_argument("--sglang", type=int, default=3200)
    parser.add_argument("--vllm", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--append-sglang", type=int, metavar="N",
                        help="append N new SGLang cases drawn with --seed (use a new seed) "
                             "instead of re-recording the corpus")
    parser.add_argument("--focus", choices=["refusals", "graphflags", "enginechecks",
                                            "startupchecks"],
                        help="with --append-sglang: draw more of the inputs SGLang refuses")
    parser.add_argument("--sglang-version", metavar="X.Y.Z",
                        help="record --sglang N cases answered by this older SGLang release into "
                             "sglang_cases_X.Y.Z.jsonl (the oracle's --sglang-version)")
    parser.add_argument("--heldout", action="store_true",
                        help="with --sglang-version: record --sglang N fresh cases (a third "
                             "drawing the flags that differ between releases) into "
                             "sglang_heldout_X.Y.Z.jsonl, or --out")
    parser.add_argument("--out", type=Path, metavar="FILE", help="with --heldout: write here")
    parser.add_argument("--own-flags", action="store_true",
                        help="with --heldout: write each line in the release's own flags "
                             "(release_lines.py; the releases before 0.5.19)")
    parser.add_argument("--checks", type=int, default=0, metavar="N",
                        help="with --heldout: N more cases drawing issue #31's start-up checks")
    parser.add_argument("--answer", type=Path, metavar="FILE",
                        help="answer the hand-written SGLang cases in FILE (sglang_classes.jsonl) "
                             "in place, and nothing else")
    args = parser.parse_args()
    python = args.python or str(args.oracle / "vendor" / "venv" / "bin" / "python")
    if args.answer:
        answer_named(args.oracle, python, args.answer)
    elif args.sglang_version and args.heldout:
        record_heldout(args.oracle, python, args.sglang_version, args.sglang, args.seed,
                       args.out, args.own_flags, args.checks)
        return
    elif args.sglang_version:
        record_sglang_version(args.oracle, python, args.sglang_version, args.sglang, args.seed)
        return
    if args.append_sglang:
        append_sglang(args.oracle, python, args.append_sglang, args.seed, args.focus)
        return
    if args.vllm:
        record_vllm(args.oracle, python, args.vllm, args.seed)
    if args.sglang:
        record_sglang(args.oracle, python, args.sglang, args.seed)


if __name__ == "__main__":
    main()
