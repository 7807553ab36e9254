"""Record one corpus per supported vLLM release: random `vllm serve` lines answered by that
release's own engine-configuration path.

Run by hand, never in CI (CI replays the recorded answers, ``compare_vllm_versions.py``)::

    python tests/fidelity/record_vllm_versions.py --oracle /path/to/oracle --version 0.27.1 \
        [--cases 200] [--seed 2020]

``--oracle`` is a folder with ``vllm_engine_oracle.py`` and one unpacked wheel per release
(``vendor/vllm-<version>``, ``*.py`` only, unmodified); ``ORACLE_VLLM_VERSION`` picks the release
it runs: its ``vllm serve`` parser, ``EngineArgs.from_cli_args``, ``create_engine_config()``, the
attention backend the model's layers select, and the worker's
``resolve_cudagraph_mode_and_sizes`` as that release's default model runner calls it.

The lines come from ``vllm_engine_generate.py`` (the same generator as the 0.33.0 corpus), kept
to the CUDA machines of four compute capabilities (one oracle start-up each) and to the flags the
release's own parser knows (its table ``cgconfig/engines/vllm/tables/vllm-<version>.json``), so that every
corpus measures the release's CUDA-graph decisions rather than its flag list. Output:
``vllm_cases_<version>.jsonl`` beside this file.

A 0.10 release takes its lines from ``vllm_engine_generate_0_10`` (its own spellings: the
attention and all2all backends as ``VLLM_ATTENTION_BACKEND`` / ``VLLM_ALL2ALL_BACKEND``, the only
way 0.10 has to choose them, ``-O`` / ``level`` / ``full_cuda_graph``, ``--cuda-graph-sizes``);
those two variables are the environment its cases may carry (0.10.1's lines also run on
compute capability 7.5 and 7.0, :data:`SMS_0_10_1`, below which its engine choice differs).
``--table`` reads the release's
flag list from another file (a table not shipped under ``engines/vllm/tables``, where a table
would make the release supported).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from record_vllm_engine import _trim, _zygote_key, run_batch
from vllm_engine_generate import generate
from vllm_engine_generate_0_10 import generate as generate_0_10

HERE = Path(__file__).parent
TABLES = HERE.parent.parent / "cgconfig" / "engines" / "vllm" / "tables"
#: Compute capabilities the per-release corpora run on (Hopper, Blackwell, Ampere, Ada).
SMS = (90, 100, 80, 89)
#: 0.10.1's corpus adds Turing and Volta: below 8.0 its engine choice differs (V0 fallback).
SMS_0_10_1 = (*SMS, 75, 70)


def corpus_path(version: str) -> Path:
    """Where a release's corpus lives."""
    return HERE / f"vllm_cases_{version}.jsonl"


#: The environment a 0.10 case may carry: the variables that choose what later releases' flags do.
ENV_0_10 = frozenset({"VLLM_ATTENTION_BACKEND", "VLLM_ALL2ALL_BACKEND"})


def _is_0_10(version: str) -> bool:
    return version.split(".")[:2] == ["0", "10"]


def known_options(version: str, table_path: Path | None = None) -> set[str]:
    """Every option string of the release's `vllm serve` parser (its generated table)."""
    table = json.loads((table_path or TABLES / f"vllm-{version}.json").read_text())
    return {o for flag in table["flags"] for o in flag["options"]}


def flag_name(word: str, options: set[str] | None = None) -> str | None:
    """The option a command-line word spells (``-O1`` → ``--optimization-level``, ``-cc.x=1``
    → ``-cc``), or None for a value or the model. Where the release's parser has ``-O`` itself
    (``options``: before 0.12.0 a spelling of ``--compilation-config``, whose
    FlexibleArgumentParser rewrites ``-O3`` to ``-O.mode=3``), ``-O<n>`` spells ``-O``."""
    if not word.startswith("-") or word[1:2].isdigit():
        return None
    name = word.split("=", 1)[0]
    if name.startswith("-O") and not name.startswith("--"):
        if options is not None and "-O" in options:
            return "-O"
        return "--optimization-level"  # FlexibleArgumentParser's -O<n> / -O <n>
    return name.split(".", 1)[0]


def fits(case: dict[str, Any], options: set[str], env_ok: frozenset[str] = frozenset(),
         sms: tuple[int, ...] = SMS) -> bool:
    """A case of the per-release corpus: a CUDA machine of ``sms`` (:data:`SMS`), no
    environment but ``env_ok``'s variables, and only flags the release knows."""
    if case["platform"] != "cuda" or case["sm"] not in sms or set(case["env"]) - env_ok:
        return False
    names = {flag_name(w, options) for w in case["argv"][3:]}
    return all(name in options for name in names if name is not None)


def cases_for(version: str, n: int, seed: int,
              table_path: Path | None = None) -> list[dict[str, Any]]:
    """``n`` generated cases that fit the release, renumbered from 0."""
    options = known_options(version, table_path)
    old = _is_0_10(version)
    env_ok = ENV_0_10 if old else frozenset()
    sms = SMS_0_10_1 if version == "0.10.1" else SMS
    chosen: list[dict[str, Any]] = []
    batch = 0
    while len(chosen) < n:
        pool = (generate_0_10(4 * n, seed + batch, 0, version) if old
                else generate(4 * n, seed + batch, 0))
        chosen += [c for c in pool if fits(c, options, env_ok, sms)][: n - len(chosen)]
        batch += 1
    return [dict(c, id=i) for i, c in enumerate(chosen)]


def _trim_for(version: str, answer: dict[str, Any]) -> dict[str, Any]:
    """The recorded fields of an answer; a 0.10 answer also keeps ``v0_decode_graphs`` (the
    V0 engine's decode graphs, for a line 0.10 runs on V0)."""
    kept = _trim(answer)
    if _is_0_10(version):
        kept["v0_decode_graphs"] = answer.get("v0_decode_graphs")
    return kept


def _retry(oracle: Path, version: str, error: str) -> int:
    path = corpus_path(version)
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    again = [r for r in rows if (r["answer"]["error"] or "").startswith(error)]
    answers: dict[int, dict[str, Any]] = {}
    run_batch(oracle, sorted(again, key=_zygote_key), answers, threading.Lock(), version)
    for row in again:
        row["answer"] = _trim_for(version, answers[row["id"]])
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(again)} cases asked again in {path.name}", file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--table", type=Path,
                        help="the release's flag table (default: engines/vllm/tables)")
    parser.add_argument("--out", type=Path,
                        help="write the corpus here (default: vllm_cases_<version>.jsonl; a "
                             "held-out batch: vllm_heldout2_<version>.jsonl)")
    parser.add_argument("--append", action="store_true",
                        help="add the new cases (ids after the recorded ones) to the corpus")
    parser.add_argument("--retry", metavar="ERROR",
                        help="re-ask the recorded cases whose error starts with ERROR (an oracle "
                             "failure, such as a cache written by two cases at once) and keep "
                             "the new answers")
    args = parser.parse_args()
    if not (args.oracle / "vendor" / f"vllm-{args.version}").is_dir():
        sys.exit(f"{args.oracle}/vendor/vllm-{args.version} is missing: unpack that wheel first")
    if args.retry is not None:
        return _retry(args.oracle, args.version, args.retry)
    old = ([json.loads(line) for line in corpus_path(args.version).read_text().splitlines()]
           if args.append else [])
    start = max((r["id"] for r in old), default=-1) + 1
    cases = sorted((dict(c, id=start + c["id"])
                    for c in cases_for(args.version, args.cases, args.seed, args.table)),
                   key=_zygote_key)
    shares: list[list[dict[str, Any]]] = [[] for _ in range(args.jobs)]
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        groups.setdefault(_zygote_key(c), []).append(c)
    for group in sorted(groups.values(), key=len, reverse=True):
        min(shares, key=len).extend(group)
    answers: dict[int, dict[str, Any]] = {}
    lock = threading.Lock()
    threads = [threading.Thread(target=run_batch, args=(args.oracle, s, answers, lock, args.version))
               for s in shares if s]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = [dict(c, answer=_trim_for(args.version, answers[c["id"]]), vllm_version=args.version)
            for c in sorted(cases, key=lambda c: c["id"]) if c["id"] in answers]
    broken = [r["id"] for r in rows if (r["answer"]["error_stage"] or "") == "oracle"]
    if broken:
        print(f"oracle failures (not recorded): {broken[:20]}", file=sys.stderr)
    rows = old + [r for r in rows if r["id"] not in broken]
    out = args.out or corpus_path(args.version)
    out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} cases in {out.name}", file=sys.stderr)
    return 0 if os.environ.get("CG_ALLOW_BROKEN") or not broken else 1


if __name__ == "__main__":
    raise SystemExit(main())
