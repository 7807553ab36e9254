"""``cgconfig check [PATH …]``: every engine launch in the files, resolved at the release the
file pins, reported as findings (table, JSON, SARIF, GitHub annotations, Markdown).

Exit codes: 0 no finding at or above ``--fail-on`` (default ``error``), 1 some, 2 bad input
(an unknown option, path or configuration key; a finding never is one)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from cgconfig.errors import CgConfigError, InputError, did_you_mean

FORMATS = ("table", "json", "sarif", "github", "markdown")
FAIL_ON = ("error", "warning", "note", "never")
EXIT_FINDINGS = 1


@dataclass
class CheckArgs:
    """The command line of ``cgconfig check``, as typer read it."""

    paths: list[str] = field(default_factory=lambda: ["."])
    output: str = "table"
    fail_on: str | None = None
    engine_version: str | None = None
    newest: bool = False
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    severity: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    gitignore: bool = True
    baseline: str | None = None
    write_baseline: bool = False
    config: str | None = None
    set_vars: list[str] = field(default_factory=list)
    gpu_memory_gib: str | None = None
    stdin_filename: str = "-"


def _choice(value: str, allowed: tuple[str, ...], where: str) -> str:
    if value not in allowed:
        raise InputError(f"unknown value {value!r}", where=where, allowed=allowed,
                         suggestion=did_you_mean(value, allowed))
    return value


def _ids(items: list[str], where: str) -> set[str]:
    from cgconfig.lint.catalog import lookup, names

    out = set()
    for item in (piece for text in items for piece in text.split(",") if piece.strip()):
        kind = lookup(item)
        if kind is None:
            raise InputError(f"unknown finding {item!r}", where=where, allowed="CG001..CG014",
                             suggestion=did_you_mean(item, names()))
        out.add(kind.id)
    return out


def _variables(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not (name[0].isalpha() or name[0] == "_") or \
                not name.replace("_", "").isalnum():
            raise InputError(f"expected VAR=VALUE, got {item!r}", where="--set")
        out[name] = value
    return out


def _run(args: CheckArgs) -> int:
    from cgconfig.cli.check_bounds import running_bound
    from cgconfig.lint.checker import CheckOptions
    from cgconfig.lint.run import RunInput, run_check
    from cgconfig.lint.settings import load_settings, parse_severity
    from cgconfig.version import __version__

    _choice(args.output, FORMATS, "-o")
    settings = load_settings(args.config)
    fail_on = _choice(args.fail_on or settings.fail_on or "error", FAIL_ON, "--fail-on")
    severity: dict[str, str] = dict(settings.severity)
    for item in args.severity:
        kid, sep, level = item.partition("=")
        if not sep:
            raise InputError(f"expected ID=LEVEL, got {item!r}", where="--severity")
        (key,) = _ids([kid], "--severity")
        severity[key] = parse_severity(level, f"--severity {key}")
    resolve_options: list[str] = []
    memory = args.gpu_memory_gib or (str(settings.gpu_memory_gib)
                                     if settings.gpu_memory_gib else None)
    if memory:
        resolve_options += ["--gpu-memory-gib", memory]
    if args.engine_version:
        from cgconfig.line.registry import names
        from cgconfig.line.version_source import parse_spec

        for engine in names():
            parse_spec(args.engine_version, engine, "--engine-version")  # bad text: exit 2 now
    options = CheckOptions(engine_version=args.engine_version,
                           engine_defaults=settings.engine_versions,
                           newest=args.newest or settings.newest,
                           variables=_variables(args.set_vars), bound=running_bound,
                           resolve_options=resolve_options)
    baseline = None
    if args.baseline and not args.write_baseline:
        from cgconfig.docio import read_text_file
        from cgconfig.lint.suppress import read_baseline

        baseline = read_baseline(read_text_file(args.baseline, "--baseline"), args.baseline)
    if args.write_baseline and not args.baseline:
        raise InputError("needs --baseline FILE to write to", where="--write-baseline")
    given = RunInput(paths=args.paths or ["."], options=options,
                     exclude=[*settings.exclude, *args.exclude], gitignore=args.gitignore,
                     severity=severity, ignore=settings.ignore | _ids(args.ignore, "--ignore"),
                     select=_ids(args.select, "--select"), baseline=baseline,
                     stdin_name=args.stdin_filename)
    os.environ["CGCONFIG_NO_GPU_PROBE"] = "1"  # the files' GPUs are not this machine's
    report = run_check(given)
    if args.write_baseline and args.baseline:
        from cgconfig.lint.suppress import baseline_text
        from cgconfig.safe_write import write_text

        write_text(args.baseline, baseline_text(report.findings), where="--write-baseline")
        sys.stderr.write(f"cgconfig: wrote {len(report.findings)} findings to the baseline "
                         f"{args.baseline}\n")
        return 0
    _print(report, args.output, __version__)
    if fail_on == "never":
        return 0
    return EXIT_FINDINGS if report.failing(fail_on) else 0


def _print(report: object, fmt: str, version: str) -> None:
    from cgconfig.lint.report import Report, github_text, markdown_text

    assert isinstance(report, Report)
    if fmt == "table":
        from cgconfig.cli.check_render import render_table

        render_table(report)
    elif fmt == "json":
        from cgconfig.cli.output import write_data

        write_data(report.to_dict(), "json")
    elif fmt == "sarif":
        import json

        from cgconfig.lint.sarif import sarif_document
        from cgconfig.terminal import json_text

        sys.stdout.write(json_text(json.dumps(sarif_document(report, version), indent=2,
                                              ensure_ascii=False)) + "\n")
    elif fmt == "github":
        sys.stdout.write(github_text(report))
    else:
        sys.stdout.write(markdown_text(report))


def run_check_command(args: CheckArgs) -> int:
    """Run ``cgconfig check``; returns the exit code (bad input: one line, exit 2)."""
    from cgconfig.cli.errors import report

    try:
        return _run(args)
    except CgConfigError as error:
        code: int = report(error, as_json=args.output in ("json", "sarif"))
        return code
