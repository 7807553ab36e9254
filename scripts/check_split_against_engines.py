#!/usr/bin/env python3
"""Differential check: cgconfig's reading of a line accepts what the engine's own parser accepts.

Run by hand (not in CI) in an environment where the engine imports (same options as
``gen_engine_tables.py``). Builds random argvs from the engine's table (sample values,
``--flag=value``, unique and ambiguous prefixes, typos, bad choices, missing values, stray
positionals, vLLM's underscores and ``-cc.key=value``, words such as ``-.5``, ``-1.``, ``-``,
``--``), parses each with the real parser and with the production path that ``cgconfig resolve``
runs after the entry point (``sources.engine_line.read_engine_line``: the one splitter,
``line.split.split_argv``, then the engine's argv reader and sources), and prints the agreement
on accept/reject with the disagreements. A refusal cgconfig adds beyond the parser (a value the
engine's later code refuses, a file that is not there) counts as a disagreement, so the
disagreements are listed to be read.

    PY=/path/to/venv/bin/python
    $PY scripts/check_split_against_engines.py sglang --sys-path vendor/sglang-0.5.23 --stub-missing
    $PY scripts/check_split_against_engines.py vllm --sys-path vendor/vllm-0.33.0 --stub-missing \
        --stub cloudpickle --stub cachetools ...   (the stubs its table records)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from engine_imports import prepare_imports  # noqa: E402

from cgconfig.errors import InputError  # noqa: E402
from cgconfig.line import EngineFlag, load_table  # noqa: E402
from cgconfig.sources.engine_line import read_engine_line  # noqa: E402


def _engine_parser(engine: str) -> Any:
    if engine == "sglang":
        from sglang.srt.server_args import ServerArgs

        parser = argparse.ArgumentParser(prog="sglang serve")
        ServerArgs.add_cli_args(parser)
        return parser
    import vllm.platforms as platforms
    from vllm.entrypoints.common.cli_args import make_arg_parser
    from vllm.platforms.cuda import NonNvmlCudaPlatform
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    platforms._current_platform = NonNvmlCudaPlatform()
    return make_arg_parser(FlexibleArgumentParser(prog="vllm serve"))


def _accepts(parser: Any, argv: list[str]) -> bool:
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args(argv)
        except (SystemExit, Exception):
            return False
    return True


def _cgconfig_accepts(engine: str, argv: list[str]) -> bool:
    try:
        read_engine_line(engine, argv, release=load_table(engine).version)
    except InputError:
        return False
    return True


def _values(flag: EngineFlag, rng: random.Random) -> list[str]:
    if not flag.takes_value:
        return []
    count = flag.nargs if isinstance(flag.nargs, int) and flag.nargs > 0 else 1
    if flag.nargs in ("+", "*"):
        count = rng.choice([1, 2, 3])
    return [flag.sample or "1"] * count


#: Words that argparse, vLLM's pre-pass and cgconfig's former predicates read differently.
TRICKY_WORDS = ("-.5", "-1.", "-", "--", "-1e3", "-1", "-0.5", "-x y")


def _case(engine: str, rng: random.Random) -> list[str]:
    table = load_table(engine)
    # --config names a YAML file the engine reads more flags from (not generated here).
    options = [f for f in table.flags if f.options and not f.positional and f.dest != "config"]
    argv = ["--model-path", "m"] if engine == "sglang" else ["m"]
    for _ in range(rng.randint(1, 4)):
        flag = rng.choice(options)
        spelling = rng.choice(flag.options)
        values = _values(flag, rng)
        mutation = rng.random()
        if mutation < 0.15 and spelling.startswith("--") and len(spelling) > 6:
            spelling = spelling[: rng.randint(4, len(spelling) - 1)]  # prefix: unique or ambiguous
        elif mutation < 0.25:
            i = rng.randrange(2, len(spelling)) if len(spelling) > 2 else 1
            spelling = spelling[:i] + spelling[i + 1:]  # typo
        elif mutation < 0.32 and flag.choices:
            values = ["not_a_choice"]
        elif mutation < 0.38 and values:
            values = []  # missing value
        elif mutation < 0.44 and values and spelling.startswith("--"):
            argv.append(f"{spelling}={values[0]}")
            continue
        elif mutation < 0.48:
            values = [*values, "stray"]
        elif mutation < 0.55 and engine == "vllm" and spelling.startswith("--"):
            spelling = spelling.replace("-", "_").replace("__", "--", 1)
        elif mutation < 0.58:  # a word whose reading (value or option) depends on the parser
            values = [rng.choice(TRICKY_WORDS)] if values else [*values, rng.choice(TRICKY_WORDS)]
        elif mutation < 0.60 and engine == "vllm":
            argv += rng.choice([["-cc.cudagraph_mode=FULL"], ["-O3"], ["-cc.cudagraph_capture_sizes+", "1,2"],
                                ["--compilation-config.mode", "3"]])
            continue
        argv += [spelling, *values]
    return argv


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("engine", choices=("sglang", "vllm"))
    cli.add_argument("--sys-path")
    cli.add_argument("--stub-missing", action="store_true")
    cli.add_argument("--stub", action="append", default=[])
    cli.add_argument("--cases", type=int, default=2000)
    cli.add_argument("--seed", type=int, default=0)
    args = cli.parse_args()
    prepare_imports(args.sys_path, args.stub_missing, args.stub)
    parser = _engine_parser(args.engine)
    rng = random.Random(args.seed)
    agree, differ = 0, []
    for _ in range(args.cases):
        argv = _case(args.engine, rng)
        real = _accepts(parser, argv)
        ours = _cgconfig_accepts(args.engine, argv)
        if real == ours:
            agree += 1
        else:
            differ.append((real, argv))
    print(f"{args.engine}: {agree}/{args.cases} agree on accept/reject "
          f"({100 * agree / args.cases:.1f} %), seed {args.seed}")
    for real, argv in differ[:15]:
        print(f"  engine {'accepts' if real else 'rejects'}: {' '.join(argv)}")


if __name__ == "__main__":
    main()
