"""The Python API for launch scripts: resolve from argv, a dict, an argparse namespace.

    from cgconfig import resolve_args
    plan = resolve_args(["--tp-size", "8", "--cuda-graph-max-bs-decode", "128"])
    plan.capture_sizes("decode")

``add_arguments(parser)`` puts cgconfig's flags on an existing argparse parser, so a launcher
keeps one command line and hands its namespace to :func:`resolve_namespace`.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from cgconfig.argv import ParsedArgs, parse_argv
from cgconfig.errors import did_you_mean
from cgconfig.fields.flags import CONFIG_FLAGS, FACT_FLAGS, OPTION_FLAGS, Flag
from cgconfig.inputs import (
    facts_from_file,
    leaves_from_config_arg,
    leaves_from_mapping,
    leaves_from_object,
)
from cgconfig.plan import Plan
from cgconfig.provenance import Layer, Leaf
from cgconfig.resolve import ResolveRequest, resolve

if TYPE_CHECKING:
    from cgconfig.fields.config import CudaGraphConfig


def request_from_parsed(parsed: ParsedArgs) -> ResolveRequest:
    """Turn parsed argv into a resolve request (reading ``--cuda-graph-config`` documents and
    ``--deployment`` files on the way)."""
    leaves = list(parsed.leaves)
    for raw, position in parsed.config_docs:
        leaves += leaves_from_config_arg(raw, position)
    facts: dict[str, Any] = {}
    sources: dict[str, str] = {}
    if "deployment" in parsed.meta:
        facts, sources = facts_from_file(parsed.meta["deployment"])
    for name, (value, flag) in parsed.facts.items():
        facts[name] = value
        sources[name] = flag
    meta = parsed.meta
    return ResolveRequest(
        leaves=leaves, facts=facts, fact_sources=sources,
        strict=bool(meta.get("strict")), rule_files=list(meta.get("rules", [])),
        disabled_rules=list(meta.get("disable_rule", [])),
        allow_override=list(meta.get("allow_override", [])),
        deprecations=list(parsed.deprecations), ignored_args=list(parsed.ignored),
    )


def request_from_argv(argv: list[str], *, ignore_unknown: bool | None = None) -> ResolveRequest:
    """Parse a command line (cgconfig's or a whole SGLang launch line) into a request."""
    parsed = parse_argv(list(argv), ignore_unknown=ignore_unknown)
    if parsed.positionals:
        from cgconfig.errors import InputError

        raise InputError(f"unexpected argument {parsed.positionals[0]!r}", where="command line",
                         hint="every input is a --flag; a config document goes after "
                              "--cuda-graph-config")
    return request_from_parsed(parsed)


def request_and_meta(argv: list[str], *,
                     allow_positionals: bool = False) -> tuple[ResolveRequest, ParsedArgs]:
    """A request from a command line in any dialect (SGLang, vLLM, TensorRT-LLM, detected or
    named by ``--dialect``), and the parse of cgconfig's own flags (output format, ...)."""
    from cgconfig.dialects import DIALECTS, detect_dialect
    from cgconfig.errors import InputError

    dialect = detect_dialect(argv)
    if dialect == "vllm":
        from cgconfig.dialects.vllm import parse_vllm_argv, request_from_vllm

        request, rest = request_from_vllm(argv), parse_vllm_argv(argv).rest
    elif dialect == "trtllm":
        from cgconfig.dialects.trtllm import _find_file, request_from_trtllm

        request, rest = request_from_trtllm(argv), _find_file(argv)[1]
    elif dialect == "sglang":
        parsed = parse_argv(list(argv))
        if parsed.positionals and not allow_positionals:
            raise InputError(f"unexpected argument {parsed.positionals[0]!r}",
                             where="command line",
                             hint="every input is a --flag (a config document goes after "
                                  "--cuda-graph-config)")
        return request_from_parsed(parsed), parsed
    else:
        raise InputError(f"unknown dialect {dialect!r}", where="--dialect", allowed=DIALECTS,
                         suggestion=did_you_mean(dialect, DIALECTS))
    parsed = parse_argv(list(rest))
    if parsed.positionals and not allow_positionals:
        raise InputError(f"unexpected argument {parsed.positionals[0]!r}", where="command line")
    return request, parsed


def resolve_args(argv: list[str], *, ignore_unknown: bool | None = None) -> Plan:
    """Resolve a command line (any dialect) into a plan; raises ``InputError`` on bad input."""
    if ignore_unknown is not None and ignore_unknown and "--ignore-unknown-args" not in argv:
        argv = [*argv, "--ignore-unknown-args"]
    return resolve(request_and_meta(list(argv))[0])


def resolve_dict(config: dict[str, Any] | CudaGraphConfig | None = None,
                 facts: dict[str, Any] | None = None, *, strict: bool = False,
                 rule_files: list[str] | None = None,
                 disabled_rules: list[str] | None = None) -> Plan:
    """Resolve a config given as a dict (every key locks) or a ``CudaGraphConfig`` object
    (only the fields the caller set lock), with deployment facts as a dict."""
    from cgconfig.fields.config import CudaGraphConfig

    leaves: list[Leaf]
    if config is None:
        leaves = []
    elif isinstance(config, CudaGraphConfig):
        leaves = leaves_from_object(config)
    else:
        leaves = leaves_from_mapping(config, "config dict", Layer.CONFIG)
    facts = dict(facts or {})
    request = ResolveRequest(leaves=leaves, facts=facts,
                             fact_sources={k: f"facts[{k!r}]" for k in facts}, strict=strict,
                             rule_files=list(rule_files or []),
                             disabled_rules=list(disabled_rules or []))
    return resolve(request)


def _dest(flag: Flag) -> str:
    return "cgconfig_" + flag.name.lstrip("-").replace("-", "_")


def add_arguments(parser: argparse.ArgumentParser, *, facts: bool = False,
                  title: str = "CUDA graphs (cgconfig)") -> argparse._ArgumentGroup:
    """Add cgconfig's graph flags (and, with ``facts=True``, the deployment flags) to a parser.

    Values land on ``cgconfig_*`` attributes, so they never collide with the launcher's own;
    pass the namespace to :func:`resolve_namespace`.
    """
    group = parser.add_argument_group(title)
    flags = CONFIG_FLAGS + OPTION_FLAGS + (FACT_FLAGS if facts else ())
    for flag in flags:
        help_text = flag.help
        if flag.replacement:
            help_text = f"Deprecated: use {flag.replacement}."
        kwargs: dict[str, Any] = {"dest": _dest(flag), "help": help_text, "default": None}
        if flag.value == "switch":
            kwargs["action"] = "store_true"
            kwargs["default"] = False
        elif flag.value == "int_list":
            kwargs.update(nargs="+", type=str)
        else:
            kwargs["type"] = str
            if flag.choices:
                kwargs["choices"] = flag.choices
        names = [flag.name, *(a for a in flag.aliases if a.startswith("--"))]
        group.add_argument(*names, **kwargs)
    return group


def resolve_namespace(namespace: argparse.Namespace, *, facts: dict[str, Any] | None = None,
                      strict: bool = False) -> Plan:
    """Resolve from a namespace filled by a parser that :func:`add_arguments` extended.

    Values are re-read through cgconfig's own parser, so errors and deprecation notes are the
    same as on the command line; ``facts`` adds deployment facts the launcher knows itself.
    """
    argv: list[str] = []
    for flag in CONFIG_FLAGS + OPTION_FLAGS + FACT_FLAGS:
        value = getattr(namespace, _dest(flag), None)
        if value is None or value is False:
            continue
        argv.append(flag.name)
        if flag.value == "switch":
            continue
        argv.extend(value if isinstance(value, list) else [str(value)])
    request = request_from_argv(argv)
    for name, value in (facts or {}).items():
        request.facts.setdefault(name, value)
        request.fact_sources.setdefault(name, f"facts[{name!r}]")
    request.strict = strict
    return resolve(request)


