"""``cgconfig verify LOG [LAUNCH LINE]``: check a server against its plan from its own log.

    cgconfig verify LOG [--engine-version V] [--metrics FILE] [--decode-log-interval N]
                    [-o json] [LAUNCH LINE…]

LOG is a file or ``-`` (stdin), read as a stream. Exit 0 when the log matches the plan, 1 when
it differs, 2 for bad input (a log in no known format included), 3 when cgconfig cannot judge
the log's release, 4 for a warning (partial evidence, steps without a graph).
"""

from __future__ import annotations

import os
import sys

from cgconfig.errors import CgConfigError, InputError
from cgconfig.line.versions import newest, oldest

USAGE_LINE = ("Usage: cgconfig verify LOG [--engine-version V] [--metrics FILE] "
              "[--decode-log-interval N] [-o json] [LAUNCH LINE…]")
DESCRIPTION = (
    "Check a running server against its plan from the server's own log (SGLang, vLLM, "
    "TensorRT-LLM): the release the log shows, the launch arguments and facts it prints "
    "(GPU memory, enforce_eager, padding; else LAUNCH LINE), the backend and sizes captured "
    "per phase, and the steps that ran without a graph.")
OPTIONS = (
    ("LOG", "the server's log file, or - for standard input"),
    ("--engine-version V", f"judge the log by this release (sglang=={oldest('sglang')}, "
                           f"vllm=={newest('vllm')}) instead of the one it prints"),
    ("--metrics FILE", "a saved /metrics scrape (SGLang sglang:cuda_graph_passes_total)"),
    ("--decode-log-interval N", "the server's --decode-log-interval (SGLang; default 40)"),
    ("-o json", "the result as JSON"),
    ("LAUNCH LINE…", "the server's command line, when the log does not print its arguments; "
                     "cgconfig flags such as --gpu-memory-gib 80 add facts the log lacks"),
)
EXIT_STATUS = ("Exit status: 0 matches, 1 differs, 2 bad input, 3 cannot judge (a release "
               "cgconfig does not model), 4 warn (partial evidence or steps without a graph).")


def usage() -> str:
    """The help text, wrapped at the terminal's width (``COLUMNS``; 100 when piped)."""
    from cgconfig.cli.width import MIN_WIDTH, width, wrap

    limit = max(width(100) or 100, MIN_WIDTH)
    out = [*wrap(USAGE_LINE, limit, indent=16), "", *wrap("  " + DESCRIPTION, limit, 2), ""]
    column = min(max(len(name) for name, _ in OPTIONS) + 4, limit // 2)
    for name, text in OPTIONS:
        head = f"  {name}".ljust(column)
        if len(head) > column:
            out.append(head.rstrip())
            head = " " * column
        out.extend(wrap(head + text, limit, column))
    return "\n".join([*out, "", *wrap("  " + EXIT_STATUS, limit, 2)]) + "\n"


_OWN = ("--metrics", "--decode-log-interval", "--engine-version")


def _take(argv: list[str]) -> tuple[str | None, str | None, int, str, list[str], str | None]:
    log: str | None = None
    metrics: str | None = None
    engine_version: str | None = None
    interval = 40
    fmt = "table"
    rest: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        name, eq, inline = token.partition("=")
        if name in (*_OWN, "-o", "--output"):
            if eq:
                value, i = inline, i + 1
            elif i + 1 < len(argv):
                value, i = argv[i + 1], i + 2
            else:
                raise InputError(f"{name} expects a value", where="cgconfig verify")
            if name == "--metrics":
                metrics = value
            elif name == "--engine-version":
                engine_version = value
            elif name == "--decode-log-interval":
                if not (value.isascii() and value.isdigit() and len(value) <= 7
                        and 1 <= int(value) <= 1_000_000):
                    raise InputError(f"expects a whole number of steps, got {value[:40]!r}",
                                     where=name, allowed="1..1000000")
                interval = int(value)
            else:
                if value not in ("table", "json"):
                    raise InputError(f"unknown output format {value[:40]!r}", where=name,
                                     allowed=("table", "json"))
                fmt = value
            continue
        if log is None and (token == "-" or not token.startswith("-")):
            log = token
        else:
            rest.append(token)
        i += 1
    return log, metrics, interval, fmt, rest, engine_version


def run_verify(argv: list[str]) -> int:
    """Verify and print; returns the exit code."""
    from cgconfig.cli.errors import report

    if {"--help", "-h"} & set(argv[:1]):
        sys.stdout.write(usage())
        return 0
    as_json = any(t in ("-ojson", "--output=json", "-o=json") for t in argv) or any(
        t in ("-o", "--output") and argv[i + 1:i + 2] == ["json"] for i, t in enumerate(argv))
    try:
        log, metrics_path, interval, fmt, line, engine_version = _take(argv)
        if log is None:
            raise InputError("LOG is required (a file, or - for standard input)",
                             where="cgconfig verify",
                             hint="cgconfig verify server.log (see cgconfig verify --help)")
        from cgconfig.verify.check import verify
        from cgconfig.verify.eager import read_metrics
        from cgconfig.verify.read import read_log

        record = read_log(log, interval=interval)
        metrics = read_metrics(metrics_path) if metrics_path else None
        from cgconfig.cli.from_file import verify_line

        line, environ = verify_line(line, os.environ)  # --from FILE: its one launch
        verdict = verify(record, line, environ=environ, metrics=metrics,
                         engine_version=engine_version)
    except CgConfigError as error:
        code: int = report(error, as_json=as_json)
        return code
    if fmt == "json":
        import json

        sys.stdout.write(json.dumps(verdict.to_dict(), indent=1, ensure_ascii=True) + "\n")
    else:
        from cgconfig.verify.report import render

        sys.stdout.write(render(verdict))
    return verdict.exit_code
