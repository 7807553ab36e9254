"""Check one launch, and every launch of one file: resolve at the release it is checked at,
turn the plan (or the engine's refusal) into findings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cgconfig.errors import CgConfigError, InputError
from cgconfig.line.versions import newest
from cgconfig.lint import analyze
from cgconfig.lint.finding import Finding
from cgconfig.lint.launches import engine_of, pins_own_release, resolve, version_options
from cgconfig.lint.locate import find_word

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch
    from cgconfig.plan import Plan


@dataclass
class CheckOptions:
    """What one run checks with."""

    engine_version: str | None = None
    """``--engine-version``: the release for launches whose file pins none."""
    engine_defaults: dict[str, str] = field(default_factory=dict)
    """``[tool.cgconfig] engine-versions``: per engine, the release when nothing else names one."""
    newest: bool = False
    """``--newest``: also compare each launch with the newest supported release (CG009)."""
    variables: dict[str, str] = field(default_factory=dict)
    """``--set VAR=VALUE``: values for variables the files leave unset."""
    resolve_options: list[str] = field(default_factory=list)
    """cgconfig flags every launch is resolved with (``--gpu-memory-gib 80``)."""
    bound: analyze.BoundReader | None = None
    """Reads the engine's running-request bound from a plan (wired by the command line)."""


#: Words of an error that say a file named on the line could not be read.
_MISSING = ("file not found", "cannot read", "is not a regular file", "not UTF-8")


def check_launch(launch: Launch, options: CheckOptions) -> list[Finding]:
    """The findings of one launch."""
    engine = engine_of(launch)
    extra = version_options(launch, engine, options.engine_version, options.engine_defaults)
    pinned = bool(extra) or pins_own_release(launch, engine)
    extra += options.resolve_options
    try:
        plan = resolve(launch, extra)
    except CgConfigError as error:
        return [_refusal(launch, error, engine or "", pinned)]
    label = str(plan.engine_version.get("label") or engine)
    inferred = _inferred(launch, plan) if not pinned else []
    ctx = analyze.Context(launch, plan, engine or str(plan.engine_version.get("engine")), label)
    bound = options.bound(plan, launch.argv) if options.bound is not None else None
    out = analyze.findings(ctx, bound)
    if options.newest and plan.engine_version.get("version") != newest(ctx.engine):
        out += _newest(ctx, launch, options.resolve_options)
    return [*inferred, *out]


def _inferred(launch: Launch, plan: Plan) -> list[Finding]:
    """CG012 for a launch answered for an older release because the newest refuses its flags
    (``line/release_from_flags.py``): the file pins no release, so which one it runs is a guess."""
    from cgconfig.line.release_from_flags import SOURCE, accepts, option_names
    from cgconfig.line.table import load_table

    chosen = plan.engine_version
    if chosen.get("source") != SOURCE:
        return []
    engine = str(chosen.get("engine"))
    table, answered = load_table(engine), load_table(engine, str(chosen["version"]))
    refused = [n for n in option_names(launch.argv, dotted=engine == "vllm")
               if not accepts(table, n) and accepts(answered, n)]
    index = find_word(launch.argv, refused[0]) if refused else None
    line = launch.arg_lines[index] if index is not None and index < len(launch.arg_lines) \
        else launch.line
    note = next((n for n in plan.notes if n.startswith("this line parses on")), "")
    # a pin the file has but that names no known release (a Dynamo release the matrix lacks)
    said = next((n for n in launch.notes if "release is unknown" in n),
                "the file pins no release")
    return [Finding("CG012", launch.file, line,
                    f"{said}, and {table.label} refuses "
                    f"{refused[0] if refused else 'a flag of the line'}: {note}",
                    f"pin the release the file runs (an image tag, a pip pin, "
                    f"--engine-version), or rewrite the line with `cgconfig migrate ... --to "
                    f"{engine}=={newest(engine)}`",
                    subject=refused[0] if refused else engine, launch_line=launch.line)]


def _refusal(launch: Launch, error: CgConfigError, engine: str, pinned: bool) -> Finding:
    """The engine's refusal as a finding, at the flag it names (a refused flag at a release
    nobody pinned is CG012: the release the file runs is not known)."""
    text = str(error)
    where = getattr(error, "where", None) or ""
    what = getattr(error, "what", None) or text
    if "is not supported: cgconfig answers for" in what:
        return Finding("CG008", launch.file, launch.line, f"not checked: {what}",
                       "pin a supported release, or pass --engine-version to check the line "
                       "as one", subject=engine, launch_line=launch.line)
    held = [w for w in launch.argv if is_placeholder(w)]
    if held and any(w in text for w in held):
        return Finding("CG006", launch.file, _line_of_word(launch, held[0]),
                       f"{held[0]!r} is a template placeholder, and the plan depends on it; "
                       "the launch is not checked", "check the file the template renders",
                       subject=held[0], launch_line=launch.line)
    named = [n for n in launch.unresolved if n in what]
    if named:
        tail = where[len(launch.file) + 1:] if where.startswith(launch.file + ":") else ""
        line = int(tail) if tail.isdigit() and len(tail) < 9 else launch.line
        hint = getattr(error, "hint", None) or f"--set {named[0]}=VALUE"
        fix = (f"set it in the file (the container's env) or pass {hint}"
               if hint.startswith("--") else f"set it in the file (the container's env): {hint}")
        return Finding("CG006", launch.file, line, f"{what}; the launch is not checked", fix,
                       subject=named[0], launch_line=launch.line)
    flags = [where] if where.startswith("-") else []
    flags += [w.strip("'\",;:()") for w in text.split() if w.startswith("-") and len(w) > 1]
    index = next((i for f in flags if (i := find_word(launch.argv, f)) is not None), None)
    line = launch.arg_lines[index] if index is not None and index < len(launch.arg_lines) \
        else launch.line
    subject = launch.argv[index].partition("=")[0] if index is not None else engine
    if any(m in text for m in _MISSING):
        return Finding("CG011", launch.file, line, f"not checked: {text}",
                       "check the launch with the file beside it, or run "
                       "`cgconfig resolve` where it exists", subject=subject,
                       launch_line=launch.line)
    is_flag = isinstance(error, InputError) and ("refuses it" in what or "unknown flag" in what)
    hint = getattr(error, "hint", None)
    suggestion = getattr(error, "suggestion", None)
    replacement: str | None = hint or (f"use {suggestion}" if suggestion else None)
    kind = ("CG002" if pinned else "CG012") if is_flag else "CG007"
    if kind == "CG012":  # say why the release is unknown (a Dynamo release the matrix lacks)
        text += "".join(f"; {note}" for note in launch.notes if "release is unknown" in note)
    return Finding(kind, launch.file, line, f"{text}", replacement,
                   subject=subject, launch_line=launch.line)


#: Words a template or a document writes in place of a value: ``{name}``, ``<name>``, ``...``.
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][\w.]*\}|<[A-Za-z_][\w.-]*>|^(\.\.\.|…)$")


def is_placeholder(word: str) -> bool:
    """Whether ``word`` holds a template's placeholder instead of a value."""
    return _PLACEHOLDER.search(word) is not None


def _line_of_word(launch: Launch, word: str) -> int:
    index = launch.argv.index(word)
    return launch.arg_lines[index] if index < len(launch.arg_lines) else launch.line


def _newest(ctx: analyze.Context, launch: Launch, options: list[str]) -> list[Finding]:
    """CG009: the same line at the newest supported release."""
    from cgconfig.line.versions import default

    version = default(ctx.engine)
    try:
        other = resolve(launch, ["--engine-version", f"{ctx.engine}=={version.version}",
                                 *options])
    except CgConfigError as error:
        summary = f"{version.label} refuses the line: {error}"
    else:
        summary = _plan_change(ctx.plan, other)
        if not summary:
            return []
    return [Finding("CG009", launch.file, launch.line,
                    f"at {version.label} instead of {ctx.label}: {summary}",
                    f"compare the two with `cgconfig diff --a-version {ctx.engine}=="
                    f"{ctx.plan.engine_version.get('version')} --b-version {ctx.engine}=="
                    f"{version.version} --a LINE --b LINE`, and pin the release you run",
                    subject=ctx.engine,
                    launch_line=launch.line, engine=ctx.label)]


def _plan_change(a: Plan, b: Plan) -> str:
    """What differs between two plans' captured graphs, in one line."""
    parts = []
    for phase in ("decode", "prefill"):
        ba, bb = a.backend(phase), b.backend(phase)
        sa, sb = a.capture_sizes(phase), b.capture_sizes(phase)
        if ba != bb:
            parts.append(f"{phase} {ba} → {bb}")
        if sa != sb:
            parts.append(f"{phase} sizes {_span(sa)} → {_span(sb)}")
    return "; ".join(parts)


def _span(sizes: list[int]) -> str:
    return f"{sizes[0]}..{sizes[-1]} ({len(sizes)} sizes)" if sizes else "none"


def check_file(path: str, text: str, options: CheckOptions) -> tuple[list[Finding], int]:
    """The findings of every launch in one file, and how many launches it has."""
    from cgconfig.lint.reader import read_launches

    try:
        launches = read_launches(path, text, options.variables)
    except CgConfigError as error:
        return [Finding("CG010", path, _error_line(str(error)), f"{error}",
                        "fix the file, or exclude it", subject="file")], 0
    out: list[Finding] = []
    for launch in launches:
        out += check_launch(launch, options)
    return out, len(launches)


def _error_line(text: str) -> int:
    """The ``FILE:LINE`` or ``line N`` an error names, else 1."""
    for marker in (":", "line "):
        for piece in text.split(marker)[1:]:
            digits = piece.split()[0].rstrip(",;:)") if piece.split() else ""
            if digits.isdigit() and len(digits) < 9:
                return int(digits)
    return 1
