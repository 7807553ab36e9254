"""Flags only the CLI reads (output format, emitter, ``--check``, ``--allow``, ``--all``), parsed
once into a typed :class:`CliOptions`.

The splitter hands these tokens to the CLI (``HOST_FLAGS`` is their arity table) before any
source runs, so a bad input can already be reported in the requested format.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, cast

from cgconfig.check import CHECK_LEVELS, CheckLevel
from cgconfig.errors import InputError, did_you_mean
from cgconfig.fields.flags import Flag
from cgconfig.line.registry import host
from cgconfig.line.registry import names as engine_names
from cgconfig.line.split import DialectFlags, Part
from cgconfig.line.versions import oldest

OutputFormat = Literal["table", "json", "yaml"]
#: ``--emit``: an engine of ``line.registry`` (its part ``emit``) or ``env`` (shell variables).
EmitTarget = str

#: The CLI's own flags, in the shape of the dialect flag table (help and completion list them).
CLI_FLAGS: tuple[Flag, ...] = (
    Flag("--output", "setting", "choice", "Output format: table, json or yaml.",
         choices=("table", "json", "yaml"), aliases=("-o",)),
    Flag("--check", "setting", "switch", "Exit 10 when a constraint overrode a value you set; "
         "--check=any: when any rule changed anything from the inputs.",
         choices=CHECK_LEVELS),
    Flag("--allow", "setting", "repeat", "--check: excuse rule ID (repeatable).",
         metavar="RULE_ID"),
    Flag("--emit", "setting", "choice", "Print engine flags for the plan instead of the plan "
         "(trtllm: the options YAML).", choices=(*engine_names(), "env")),
    Flag("--all", "setting", "switch",
         "explain: show every key, not only explicit or changed ones."),
    Flag("--show", "setting", "choice", "Also draw the decode and prefill sizes on a log-scale "
         "strip (table output).", choices=("sizes",)),
    Flag("--engine-version", "setting", "str", "Answer as this engine release "
         f"({host()}=={oldest(host())}, or {oldest(host())} for the line's engine); default: "
         "CGCONFIG_ENGINE_VERSION, an image tag, the "
         "installed engine, else the newest supported.", metavar="[ENGINE==]VERSION"),
)

_BY_SPELLING: dict[str, Flag] = {s: f for f in CLI_FLAGS for s in (f.name, *f.aliases)}

#: What the splitter carves out of a command line for the CLI.
HOST_FLAGS = DialectFlags("cli", {s: 1 if f.takes_value else 0
                                  for s, f in _BY_SPELLING.items()})


class CliOptions(NamedTuple):
    """What the CLI-only flags asked for."""

    output: OutputFormat = "table"
    emit: EmitTarget | None = None
    check: CheckLevel | None = None
    """``--check`` (``overrides``) or ``--check=LEVEL``; None without ``--check``."""
    allow: tuple[str, ...] = ()
    """``--allow RULE_ID``: rules ``--check`` excuses."""
    show_all: bool = False
    show: Literal["sizes"] | None = None
    """``--show sizes``: draw the sizes on a log-scale strip under the table."""
    given: tuple[str, ...] = ()
    """The spellings that appeared, in order."""

    @property
    def as_json(self) -> bool:
        """Whether errors and results go out as JSON."""
        return self.output == "json"

    @property
    def table(self) -> bool:
        """Whether the plan is printed as the human table."""
        return self.emit is None and self.output == "table"


def _choice(flag: Flag, spelling: str, value: str | None) -> str:
    choices = flag.choices or ()
    if value is None:
        raise InputError(f"{spelling} expects a value", where=spelling, allowed=choices)
    if value not in choices:
        raise InputError(f"invalid value {value!r}", where=spelling, allowed=choices,
                         suggestion=did_you_mean(value, choices))
    return value


def _check_level(value: str | bool | None) -> CheckLevel | None:
    if value is None:
        return None
    return "overrides" if value is True else cast(CheckLevel, value)


def parse_options(part: Part | None) -> CliOptions:
    """Parse the CLI's tokens (from :func:`~cgconfig.line.split.split_argv`)."""
    values: dict[str, str | bool] = {}
    allow: list[str] = []
    given: list[str] = []
    for arg in part.args if part is not None else []:
        spelling, eq, inline = arg.name, arg.inline is not None, arg.inline or ""
        if spelling not in _BY_SPELLING and spelling[:2] in _BY_SPELLING:  # -ojson
            attached = arg.name[2:] + ("" if arg.inline is None else "=" + arg.inline)
            spelling, eq, inline = spelling[:2], True, attached
        flag = _BY_SPELLING[spelling]
        given.append(spelling)
        key = flag.name.lstrip("-")
        if not flag.takes_value:
            if eq and not flag.choices:
                raise InputError(f"{spelling} is a switch and takes no value (got {inline!r})",
                                 where=spelling)
            # A switch with levels takes its level inline only (``--check=any``).
            values[key] = _choice(flag, spelling, inline) if eq else True
            continue
        value = inline if eq else (arg.values[0] if arg.values else None)
        if flag.value == "repeat":
            if not value:
                raise InputError("expects a rule id", where=spelling)
            allow.append(value)
        else:
            values[key] = _choice(flag, spelling, value)
    return CliOptions(output=cast(OutputFormat, values.get("output", "table")),
                      emit=cast("EmitTarget | None", values.get("emit")),
                      check=_check_level(values.get("check")), allow=tuple(allow),
                      show_all=bool(values.get("all")),
                      show=cast('Literal["sizes"] | None', values.get("show")), given=tuple(given))
