"""``cgconfig tune``: choose decode capture sizes from a batch-size histogram.

    cgconfig tune --histogram FILE [--max-graphs N | --max-waste PCT |
                  --max-graph-memory GIB [--memory-log LOG]] [--cost FILE] [launch line]

The launch line is read exactly as ``cgconfig resolve`` reads it (any dialect, ``-o``, ``--emit``,
``--rules``...). ``cgconfig histogram --sglang-log LOG`` converts an SGLang server log.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from typing import Any

from cgconfig.errors import CgConfigError, InputError, did_you_mean
from cgconfig.tune.optimize import MAX_GRAPHS

USAGE = """\
Usage: cgconfig tune --histogram FILE [--max-graphs N | --max-waste PCT | --max-graph-memory GIB
                     [--memory-log LOG]] [--cost FILE] [FLAGS…]

  Choose the decode capture sizes that minimise the expected cost over a histogram of real
  batch sizes, under every rule and alignment constraint of the deployment, and compare them
  with the default list.

  --histogram FILE   batch sizes as recorded (runner.stats.write_histogram, or
                     `cgconfig histogram --sglang-log LOG`); format: docs/histogram-format.md
  --max-graphs N     at most N graphs, 1..256 (default: as many as the default list captures)
  --max-waste PCT    the fewest graphs whose padding waste is at most PCT percent
  --max-graph-memory GIB
                     as many graphs as fit GIB of graph memory, the memory per graph taken
                     from --memory-log LOG (the server's start-up log), else from cgconfig's
                     prediction (the plan's cost section, `cgconfig explain cost.decode`)
  --memory-log LOG   the log --max-graph-memory reads (SGLang or vLLM)
  --cost FILE        step-time model (graph and eager lines, ms) instead of padded rows
  FLAGS…             the launch line, as for `cgconfig resolve` (-o json|yaml, --emit sglang|vllm)
"""

OWN_FLAGS = ("--histogram", "--max-graphs", "--max-waste", "--cost", "--max-graph-memory",
             "--memory-log")


@dataclass
class TuneArgs:
    """The tune command's own flags, and the launch line left for the resolver."""

    histogram: str | None = None
    max_graphs: int | None = None
    max_waste: float | None = None
    cost: str | None = None
    rest: list[str] | None = None
    max_graph_memory: float | None = None
    memory_log: str | None = None


def _wants_json(argv: list[str]) -> bool:
    """Whether errors must also go to stdout as JSON (``-o json`` anywhere in the line)."""
    return any(token in ("--output=json", "-o=json", "-ojson") or
               (token in ("-o", "--output") and argv[i + 1: i + 2] == ["json"])
               for i, token in enumerate(argv))


def _value(argv: list[str], i: int, name: str) -> tuple[str, int]:
    token = argv[i]
    if "=" in token:
        return token.split("=", 1)[1], i + 1
    if i + 1 >= len(argv):
        raise InputError(f"{name} expects a value", where=name)
    return argv[i + 1], i + 2


@functools.cache
def _other_flags() -> tuple[str, ...]:
    """Every flag a launch line may hold (cgconfig's, SGLang's, vLLM's, TensorRT-LLM's)."""
    from cgconfig.cli.options import CLI_FLAGS
    from cgconfig.engines.trtllm.flags import DIALECT_FLAGS as TRTLLM_FLAGS
    from cgconfig.engines.vllm.flags import DIALECT_FLAGS as VLLM_FLAGS
    from cgconfig.fields.flags import known_spellings

    return tuple(dict.fromkeys([*known_spellings(), *VLLM_FLAGS.flags, *TRTLLM_FLAGS.flags,
                                *(s for f in CLI_FLAGS for s in (f.name, *f.aliases))]))


def _refuse_mistyped(name: str) -> None:
    """``--max-graph 8`` is a typo of ours: say so, rather than let the resolver suggest one of
    its own flags. Only a name close to one of tune's six flags is compared with every other
    flag, so a line of 100,000 unknown ``--x`` costs six comparisons each."""
    if not name.startswith("--") or did_you_mean(name, OWN_FLAGS) is None:
        return
    others = _other_flags()
    if name in others:
        return
    closest = did_you_mean(name, [*OWN_FLAGS, *others])
    if closest in OWN_FLAGS:
        raise InputError(f"unknown flag {name}", where="cgconfig tune", suggestion=closest)


def _number(raw: str, name: str, what: str, allowed: str, *, whole: bool = False,
            positive: bool = False, maximum: float) -> float:
    """A tune flag's number through the one numeric parser (:mod:`cgconfig.fields.values`:
    ASCII digits only, so ``８``, ``٥`` and ``1_0`` are refused), with tune's own wording."""
    from cgconfig.fields.values import read_float, read_int

    try:
        if whole:
            return read_int(raw, name, minimum=1, maximum=int(maximum))
        return read_float(raw, name, minimum=0, maximum=maximum, positive=positive)
    except InputError:
        raise InputError(f"expects {what}, got {raw[:40]!r}", where=name,
                         allowed=allowed) from None


def parse_tune_args(argv: list[str]) -> TuneArgs:
    """Take tune's own flags out of ``argv``; the rest is the launch line."""
    out = TuneArgs(rest=[])
    assert out.rest is not None
    i = 0
    while i < len(argv):
        name = argv[i].split("=", 1)[0]
        if name not in OWN_FLAGS:
            _refuse_mistyped(name)
            out.rest.append(argv[i])
            i += 1
            continue
        raw, i = _value(argv, i, name)
        if name == "--histogram":
            out.histogram = raw
        elif name == "--cost":
            out.cost = raw
        elif name == "--memory-log":
            out.memory_log = raw
        elif name == "--max-graph-memory":
            out.max_graph_memory = _number(
                raw.removesuffix("GiB").removesuffix("G"), name, "GiB of graph memory",
                "a number above 0, up to 1048576", positive=True, maximum=1 << 20)
        elif name == "--max-graphs":
            out.max_graphs = int(_number(raw, name, "a whole number of graphs",
                                         f"1..{MAX_GRAPHS}", whole=True, maximum=MAX_GRAPHS))
        else:
            out.max_waste = _number(raw.removesuffix("%"), name, "a percentage", "0..100",
                                    maximum=100)
    if out.histogram is None:
        raise InputError("--histogram FILE is required", where="cgconfig tune",
                         hint="record one with runner.stats.write_histogram(path) or convert a "
                              "server log with `cgconfig histogram --sglang-log LOG`")
    chosen = [n for n, v in (("--max-graphs", out.max_graphs), ("--max-waste", out.max_waste),
                             ("--max-graph-memory", out.max_graph_memory)) if v is not None]
    if len(chosen) > 1:
        raise InputError(f"{' and '.join(chosen)} are alternatives; give one",
                         where="cgconfig tune")
    if out.memory_log is not None and out.max_graph_memory is None:
        raise InputError("--memory-log LOG needs --max-graph-memory GIB", where="cgconfig tune",
                         hint="without a log, --max-graph-memory uses cgconfig's prediction")
    return out


def run_tune(argv: list[str]) -> int:
    """Tune and print the result; returns the exit code."""
    from cgconfig.cli.errors import note, report

    if {"--help", "-h"} & set(argv):
        from cgconfig.cli.help import fit_help

        sys.stdout.write(fit_help(USAGE))
        return 0
    as_json = _wants_json(argv)
    try:
        from cgconfig.cli.options import HOST_FLAGS, parse_options
        from cgconfig.sources.command_line import request_from_split, split_command_line
        from cgconfig.tune import histogram as hist_file
        from cgconfig.tune.cost import load_cost
        from cgconfig.tune.plan_tuner import tune_plan

        args = parse_tune_args(argv)
        assert args.histogram is not None and args.rest is not None
        histogram = hist_file.load(args.histogram)
        budget = None
        if args.max_graph_memory is not None and args.memory_log is not None:
            from cgconfig.tune.memory import graphs_for_budget

            budget = graphs_for_budget(args.max_graph_memory, args.memory_log)
            args.max_graphs = budget.graphs
        cost = load_cost(args.cost) if args.cost else None
        split = split_command_line(args.rest, HOST_FLAGS, environ=os.environ)
        options = parse_options(split.parts.get(HOST_FLAGS.owner))
        request = request_from_split(split, environ=os.environ)[0]
        if args.max_graph_memory is not None and budget is None:
            from cgconfig.api import resolve_request
            from cgconfig.cost.budget import graphs_for_predicted_budget
            from cgconfig.tune.memory import GraphBudget

            graphs, how = graphs_for_predicted_budget(args.max_graph_memory,
                                                      resolve_request(request))
            budget = GraphBudget(args.max_graph_memory, min(graphs, MAX_GRAPHS), how)
            args.max_graphs = budget.graphs
        result = tune_plan(request, histogram, args.histogram, max_graphs=args.max_graphs,
                           max_waste_pct=args.max_waste, cost=cost, cost_source=args.cost)
    except CgConfigError as error:
        return report(error, as_json=as_json)
    fmt = options.output
    emit = options.emit
    for message in result.plan.deprecations:
        note("deprecated", message)
    if emit or fmt != "table":  # the table lists them itself
        for message in result.plan.warnings:
            note("warning", message)
    if budget is not None and (emit or fmt != "table"):
        note("memory budget", f"{budget.budget_gib:g} GiB: at most {budget.graphs} graphs "
                              f"({budget.how})")
    if emit:
        from cgconfig.emit import emit_plan

        text, notes = emit_plan(result.plan, emit)
        for message in notes:
            note(f"not expressible in {emit}", message)
        sys.stdout.write(text)
        return 0
    doc: dict[str, Any] = {**result.plan.to_dict(), "tune": result.to_dict()}
    if budget is not None:
        doc["tune"]["memory_budget"] = budget.to_dict()
    if fmt == "json":
        from cgconfig.cli.output import compact_json

        sys.stdout.write(compact_json(doc) + "\n")
    elif fmt == "yaml":
        from cgconfig.cli.output import yaml_text

        sys.stdout.write(yaml_text(doc))
    else:
        from cgconfig.cli.tune_report import print_report

        print_report(result)
        if budget is not None:
            sys.stdout.write(f"memory budget {budget.budget_gib:g} GiB: at most {budget.graphs} "
                             f"graphs ({budget.how})\n")
    return 0


def run_histogram(log: str | None, interval: int | str, output: str | None, *,
                  vllm_log: str | None = None) -> int:
    """``cgconfig histogram --sglang-log LOG`` (or ``--vllm-log LOG``): print or write the
    converted histogram."""
    from cgconfig.cli.errors import note, report
    from cgconfig.tune import histogram as hist_file

    try:
        if (log is None) == (vllm_log is None):
            raise InputError("give one log: --sglang-log LOG or --vllm-log LOG",
                             where="cgconfig histogram")
        if vllm_log is not None:
            from cgconfig.engines.vllm.tune_log import histogram_from_log as from_vllm

            histogram = from_vllm(vllm_log)
        else:
            from cgconfig.engines.sglang.tune_log import histogram_from_log

            assert log is not None
            steps = int(_number(str(interval), "--decode-log-interval",
                                "a whole number of steps", "1..1000000", whole=True,
                                maximum=1_000_000))
            histogram = histogram_from_log(log, interval=steps)
        for message in histogram.notes:
            note("note", message)
        if output is None:
            sys.stdout.write(hist_file.dumps(histogram))
        else:
            hist_file.write(output, histogram, where=f"--output {output}")
    except CgConfigError as error:
        return report(error)
    return 0
