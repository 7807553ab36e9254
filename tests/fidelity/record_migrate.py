"""Record `cgconfig migrate`'s fidelity batch: lines that parse on their source release,
migrated, and the target release's own parser's verdict on each migrated line.

    python tests/fidelity/record_migrate.py --oracle /path/to/oracle [--per-release 40] [--batch 2]

Lines are drawn (each batch on its own seed, :data:`BATCHES`, used by no other corpus) from
each source release's flag table: one flag the target release lacks (removed or renamed between
them) where there is one, and up to three other flags with the sample value the source's parser
accepted when its table was generated. Each line is run through the source release's real
parser (the oracle's ``sglang_oracle.py --sglang-version SOURCE``) and kept only when it parses
there; the migrated line is then run through the target's. vLLM lines: the source is checked
against its flag table (generated from that release's parser; the oracle runs vLLM 0.33.0
only), the migrated line through ``vllm_engine_oracle.py`` at 0.33.0. Batch 1 is written to
``migrate_cases.jsonl``, batch 2 to ``migrate_cases_2.jsonl``, batch 3 to
``migrate_cases_3.jsonl``; ``test_migrate_cases.py`` replays them without the oracle.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cgconfig.line.release_from_flags import accepts  # noqa: E402
from cgconfig.line.table import EngineFlag, load_table  # noqa: E402
from cgconfig.line.versions import SUPPORTED, EngineVersion  # noqa: E402
from cgconfig.migrate import migrate  # noqa: E402

HERE = Path(__file__).resolve().parent
#: (engine, source, target) pairs a batch covers: older releases up to the newest, the newest
#: down to an older one.
Pair = tuple[str, str, str]


class Batch(NamedTuple):
    seed: int
    out: Path
    pairs: list[Pair]


BATCHES = {
    # The first batch: SGLang 0.5.19-0.5.22 up, 0.5.23 down, and vLLM releases that removed
    # flags up to the newest.
    1: Batch(370_037, HERE / "migrate_cases.jsonl",
             [("sglang", s, "0.5.23") for s in ("0.5.19", "0.5.20", "0.5.21", "0.5.22")]
             + [("sglang", "0.5.23", "0.5.19"), ("vllm", "0.20.2", "0.33.0"),
                ("vllm", "0.26.0", "0.33.0"), ("vllm", "0.29.0", "0.33.0")]),
    # Held out: recorded after migrate's code, from the releases supported since the first
    # batch (SGLang 0.5.16-0.5.18, vLLM 0.15.1-0.19.1) and on a seed no other corpus uses.
    2: Batch(370_038, HERE / "migrate_cases_2.jsonl",
             [("sglang", s, "0.5.23") for s in ("0.5.16", "0.5.17", "0.5.18")]
             + [("sglang", "0.5.23", "0.5.18"), ("sglang", "0.5.23", "0.5.16"),
                ("sglang", "0.5.19", "0.5.16"), ("vllm", "0.15.1", "0.33.0"),
                ("vllm", "0.17.1", "0.33.0"), ("vllm", "0.19.1", "0.33.0")]),
    # Held out: recorded after SGLang 0.5.13/0.5.14 and vLLM 0.14.1 were supported (the
    # releases before the unified --cuda-graph-config and before --cudagraph-capture-sizes'
    # newer neighbours), on a seed no other corpus uses.
    3: Batch(370_039, HERE / "migrate_cases_3.jsonl",
             [("sglang", s, "0.5.23") for s in ("0.5.13", "0.5.14")]
             + [("sglang", "0.5.23", "0.5.13"), ("sglang", "0.5.23", "0.5.14"),
                ("sglang", "0.5.13", "0.5.19"), ("vllm", "0.14.1", "0.33.0"),
                ("vllm", "0.22.1", "0.33.0"), ("vllm", "0.24.0", "0.33.0")]),
}
#: Flags no line should carry: files, servers, help.
SKIP = ("--config", "--help", "--version", "--model-path", "--model", "--tokenizer-path")
PREFIX = {"sglang": ["python3", "-m", "sglang.launch_server", "--model-path", "m"],
          "vllm": ["vllm", "serve", "m"]}


def words_of(flag: EngineFlag) -> list[str] | None:
    """The flag with its sample value, as the source's parser accepted it."""
    if flag.positional or any(o in SKIP for o in flag.options) or not flag.options[0].startswith("--"):
        return None
    name = flag.options[0]
    if not flag.takes_value or flag.nargs == 0:
        return [name]
    if flag.sample is None:
        return None
    values = shlex.split(flag.sample) if flag.nargs in ("*", "+") else [flag.sample]
    return [name, *values] if values else None


def draw(engine: str, source: str, target: str, count: int, rng: random.Random) -> list[list[str]]:
    old, new = load_table(engine, source), load_table(engine, target)
    flags = [f for f in old.flags if words_of(f) is not None]
    lacking = [f for f in flags if not any(new.lookup(o) for o in f.options)]
    lines: list[list[str]] = []
    for _ in range(count):
        chosen: list[EngineFlag] = []
        if lacking and rng.random() < 0.85:
            chosen.append(rng.choice(lacking))
        chosen += rng.sample(flags, rng.randint(1, 3))
        line: list[str] = []
        for name in dict.fromkeys(flag.name for flag in chosen):
            line += words_of(old.lookup(name) or chosen[0]) or []
        lines.append(line)
    return lines


def oracle(folder: Path, script: str, version_args: list[str], argvs: list[list[str]]) -> list[dict]:
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        for i, argv in enumerate(argvs):
            handle.write(json.dumps({"id": i, "argv": argv}) + "\n")
    run = subprocess.run(["nice", "-n", "10", str(folder / "vendor/venv/bin/python"), script,
                          *version_args, "--batch", handle.name], cwd=folder, check=True,
                         capture_output=True, text=True, timeout=3000)
    answers = {a["id"]: a for a in map(json.loads, run.stdout.splitlines()) if "id" in a}
    return [answers[i] for i in range(len(argvs))]


def parses(answer: dict) -> bool:
    return answer.get("error_stage") != "argparse"


def ask(folder: Path, engine: str, version: str, argvs: list[list[str]]) -> list[dict]:
    if engine == "sglang":
        return oracle(folder, "sglang_oracle.py", ["--sglang-version", version], argvs)
    assert version == "0.33.0", "the oracle runs vLLM 0.33.0 only"
    return oracle(folder, "vllm_engine_oracle.py", [],  # --batch must come first
                  [["vllm", "serve", *a] for a in argvs])


def table_parses(engine: str, version: str, argv: list[str]) -> bool:
    table = load_table(engine, version)
    return all(accepts(table, "--" + w[2:].split("=", 1)[0].split(".", 1)[0].replace("_", "-"))
               for w in argv if w.startswith("--"))


def migrated_now(row: dict) -> list[str]:
    """What migrate writes for a recorded row's line today."""
    prefix = PREFIX[row["engine"]]
    chosen = EngineVersion(row["engine"], row["source"], "--engine-version")
    result = migrate([*prefix, *row["argv"]], f"{row['engine']}=={row['target']}",
                     engine_version=chosen)
    return result.argv[len(prefix):]


def recheck(folder: Path, out: Path) -> None:
    """Ask the target's parser again about every recorded line whose migration changed (the
    source verdicts stand: the lines are the same)."""
    rows = [json.loads(r) for r in out.read_text().splitlines()]
    changed = [r for r in rows if migrated_now(r) != r["migrated"]]
    for key in sorted({(r["engine"], r["target"]) for r in changed}):
        group = [r for r in changed if (r["engine"], r["target"]) == key]
        answers = ask(folder, key[0], key[1], [migrated_now(r) for r in group])
        for row, answer in zip(group, answers, strict=True):
            row["migrated"] = migrated_now(row)
            row["target_accepts"] = parses(answer)
            row["target_error"] = answer.get("error") if not parses(answer) else None
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"rechecked {len(changed)} of {len(rows)}; "
          f"{sum(r['target_accepts'] for r in rows)} accepted by the target")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--oracle", required=True, type=Path, help="the oracle's folder")
    parser.add_argument("--per-release", type=int, default=40)
    parser.add_argument("--engine", choices=("sglang", "vllm"),
                        help="record only this engine's pairs, keeping the other's rows")
    parser.add_argument("--recheck", action="store_true",
                        help="re-ask the target's parser only about lines whose migration "
                             "changed since they were recorded")
    parser.add_argument("--batch", type=int, choices=sorted(BATCHES), default=1,
                        help="which batch: 1 (migrate_cases.jsonl), 2 or 3, held out "
                             "(migrate_cases_2.jsonl, migrate_cases_3.jsonl)")
    options = parser.parse_args()
    batch = BATCHES[options.batch]
    if options.recheck:
        recheck(options.oracle, batch.out)
        return
    rng = random.Random(batch.seed)
    rows: list[dict] = []
    if options.engine and batch.out.exists():
        rows = [r for r in map(json.loads, batch.out.read_text().splitlines())
                if r["engine"] != options.engine]
    for engine, source, target in batch.pairs:
        if options.engine and engine != options.engine:
            draw(engine, source, target, options.per_release, rng)  # the same stream
            continue
        assert source in SUPPORTED[engine] and target in SUPPORTED[engine]
        lines = draw(engine, source, target, options.per_release, rng)
        if engine == "sglang":
            verdicts = [parses(a) for a in ask(options.oracle, engine, source, lines)]
            how = f"sglang_oracle.py --sglang-version {source}"
        else:
            verdicts = [table_parses(engine, source, line) for line in lines]
            how = f"the vLLM {source} flag table"
        kept = [line for line, ok in zip(lines, verdicts, strict=True) if ok]
        prefix = PREFIX[engine]
        migrated = []
        for line in kept:
            chosen = EngineVersion(engine, source, "--engine-version")
            result = migrate([*prefix, *line], f"{engine}=={target}", engine_version=chosen)
            migrated.append(result.argv[len(prefix):])
        answers = ask(options.oracle, engine, target, migrated) if kept else []
        for line, after, answer in zip(kept, migrated, answers, strict=True):
            rows.append({"engine": engine, "source": source, "target": target, "argv": line,
                         "source_parser": how, "migrated": after,
                         "target_accepts": parses(answer),
                         "target_error": answer.get("error") if not parses(answer) else None})
        print(f"{engine} {source} -> {target}: {len(lines)} drawn, {len(kept)} parse on the "
              f"source, {sum(parses(a) for a in answers)} accepted by the target", flush=True)
        for row in rows[-len(kept):] if kept else []:
            if not row["target_accepts"]:
                print(f"  refused: {row['argv']} -> {row['migrated']}: {row['target_error']}",
                      flush=True)
        batch.out.write_text("".join(json.dumps(r) + "\n" for r in rows))  # after each pair
    print(f"wrote {batch.out} ({len(rows)} cases)")


if __name__ == "__main__":
    main()
