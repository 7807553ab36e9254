"""``cgconfig verify LOG [LAUNCH LINE]``: check a server against its plan from its own log.

    cgconfig verify LOG [--metrics FILE] [--decode-log-interval N] [-o json] [LAUNCH LINE…]

LOG is a file or ``-`` (stdin), read as a stream. Exit 0 when the log matches the plan, 1 when
it differs, 2 for bad input (a log in no known format included).
"""

from __future__ import annotations

import os
import sys

from cgconfig.errors import CgConfigError, InputError

USAGE = """\
Usage: cgconfig verify LOG [--metrics FILE] [--decode-log-interval N] [-o json] [LAUNCH LINE…]

  Check a running server against its plan from the server's own log (SGLang, vLLM,
  TensorRT-LLM): the engine and version, the launch arguments it printed (else LAUNCH LINE),
  the backend and sizes captured per phase, and the steps that ran without a graph.

  LOG                      the server's log file, or - for standard input
  --metrics FILE           a saved /metrics scrape (SGLang sglang:cuda_graph_passes_total)
  --decode-log-interval N  the server's --decode-log-interval (SGLang; default 40)
  -o json                  the result as JSON
  LAUNCH LINE…             the server's command line, when the log does not print its arguments;
                           cgconfig flags such as --gpu-memory-gib 80 add facts the log lacks

  Exit status: 0 matches, 1 differs, 2 bad input.
"""

_OWN = ("--metrics", "--decode-log-interval")


def _take(argv: list[str]) -> tuple[str | None, str | None, int, str, list[str]]:
    log: str | None = None
    metrics: str | None = None
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
    return log, metrics, interval, fmt, rest


def run_verify(argv: list[str]) -> int:
    """Verify and print; returns the exit code."""
    from cgconfig.cli.errors import report

    if {"--help", "-h"} & set(argv[:1]) or argv == ["--help"]:
        sys.stdout.write(USAGE)
        return 0
    if not argv:  # bare `cgconfig verify` (or `verify --`): the usage, and the one error line
        sys.stdout.write(USAGE)
        return report(InputError("LOG is required (a file, or - for standard input)",
                                 where="cgconfig verify"))
    as_json = any(t in ("-ojson", "--output=json", "-o=json") for t in argv) or any(
        t in ("-o", "--output") and argv[i + 1:i + 2] == ["json"] for i, t in enumerate(argv))
    try:
        log, metrics_path, interval, fmt, line = _take(argv)
        if log is None:
            raise InputError("LOG is required (a file, or - for standard input)",
                             where="cgconfig verify")
        from cgconfig.verify.check import verify
        from cgconfig.verify.eager import read_metrics
        from cgconfig.verify.read import read_log

        record = read_log(log, interval=interval)
        metrics = read_metrics(metrics_path) if metrics_path else None
        verdict = verify(record, line, environ=os.environ, metrics=metrics)
    except CgConfigError as error:
        code: int = report(error, as_json=as_json)
        return code
    if fmt == "json":
        import json

        sys.stdout.write(json.dumps(verdict.to_dict(), indent=1, ensure_ascii=True) + "\n")
    else:
        from cgconfig.verify.report import render

        sys.stdout.write(render(verdict))
    return 0 if verdict.matches else 1
