"""The Python API for launch scripts: resolve from argv, a dict, an argparse namespace.

    from cgconfig import resolve_args
    plan = resolve_args(["--tp-size", "8", "--cuda-graph-max-bs-decode", "128"])
    plan.capture_sizes("decode")

``add_arguments(parser)`` puts cgconfig's flags on an existing argparse parser, so a launcher
keeps one command line and hands its namespace to :func:`resolve_namespace`.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cgconfig.errors import InputError
from cgconfig.fields.flags import CONFIG_FLAGS, FACT_FLAGS, OPTION_FLAGS, Flag
from cgconfig.limits import quote
from cgconfig.line.plugins import part as engine_part
from cgconfig.line.split import Part
from cgconfig.line.versions import EngineVersion
from cgconfig.plan import Plan
from cgconfig.resolve.pipeline import resolve
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.command_line import request_from_split, split_command_line
from cgconfig.sources.contribution import Settings, Source, gather
from cgconfig.sources.machine import MachineFacts
from cgconfig.sources.model_config import ModelConfigFile
from cgconfig.sources.python_values import ConfigValue, FactValues, SettingValues

if TYPE_CHECKING:
    from cgconfig.fields.config import CudaGraphConfig


def resolve_request(request: ResolveRequest) -> Plan:
    """Resolve a gathered request with the shipped rule packs and the request's own packs."""
    rules = None
    if request.use_rules:
        from cgconfig.rules import loading

        rules = loading.load_rules_for_resolve(request.settings.rule_files)
    plan = resolve(request, rules)
    from cgconfig.cost.plan_cost import plan_cost  # the start-up cost beside the plan (#34)

    plan.cost = plan_cost(dialect=request.dialect, capture=plan.capture, facts=plan.facts,
                          engine=plan.engine, engine_label=plan.engine_version.get("label", ""),
                          options=plan.options, engine_reserve=plan.engine_reserve)
    return plan


def request_from_argv(argv: list[str], *, ignore_unknown: bool | None = None,
                      environ: Mapping[str, str] | None = None,
                      log_version: str | None = None,
                      engine_version: EngineVersion | None = None) -> ResolveRequest:
    """A request from a command line in any dialect (SGLang, vLLM, TensorRT-LLM, detected or
    named by ``--dialect`` or by an entry point such as ``vllm serve``); ``environ`` holds the
    engine environment variables to read and ``CGCONFIG_ENGINE_VERSION`` (the CLI passes
    ``os.environ``; default: none); ``log_version`` is the engine version a log printed;
    ``engine_version`` names the release outright (over every source the line has)."""
    environ = check_environ(environ)
    split = split_command_line(check_argv(argv), environ=environ, log_version=log_version,
                               engine_version=engine_version)
    return request_from_split(split, ignore_unknown=ignore_unknown, environ=environ)[0]


def check_environ(environ: Any, where: str = "environ") -> Mapping[str, str] | None:
    """``environ`` as a mapping of strings to strings (``None`` stays ``None``); a set, a
    number or non-string keys or values are an :class:`~cgconfig.errors.InputError`."""
    if environ is None:
        return None
    if not isinstance(environ, Mapping):
        raise InputError(f"expected a mapping of names to values, got {type(environ).__name__}",
                         where=where, hint="pass os.environ or a dict of strings")
    for key, value in environ.items():
        if not isinstance(key, str) or not isinstance(value, str):
            bad = key if not isinstance(key, str) else value
            raise InputError(f"names and values must be strings, got {type(bad).__name__} "
                             f"{quote(bad)}", where=f"{where}[{quote(key)}]")
    return environ


def check_argv(argv: Any, where: str = "argv") -> list[str]:
    """``argv`` as a list of strings; anything else (None, numbers, NUL bytes) is an
    :class:`~cgconfig.errors.InputError`, as on the command line."""
    if isinstance(argv, (str, bytes)) or not isinstance(argv, (list, tuple)):
        raise InputError(f"expected a list of strings, got {type(argv).__name__}", where=where,
                         hint='split a command line first, e.g. shlex.split("...")')
    for index, token in enumerate(argv):
        if not isinstance(token, str):
            raise InputError(f"expected a string, got {type(token).__name__} {quote(token)}",
                             where=f"{where}[{index}]")
        if "\0" in token:
            raise InputError("an argument cannot contain a NUL byte", where=f"{where}[{index}]")
    return list(argv)


def _check_mapping(value: Any, where: str) -> dict[str, Any]:
    """A dict with string keys (``None`` is empty); anything else is an ``InputError``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"expected a dict, got {type(value).__name__}", where=where)
    for key in value:
        if not isinstance(key, str):
            raise InputError(f"keys must be strings, got {type(key).__name__} {quote(key)}",
                             where=where)
    return dict(value)


def resolve_args(argv: list[str], *, ignore_unknown: bool | None = None,
                 environ: Mapping[str, str] | None = None) -> Plan:
    """Resolve a command line (any dialect, an engine launch line included) into a plan;
    ``environ`` as in :func:`request_from_argv`.

    Raises :class:`~cgconfig.errors.InputError` for every problem with the input (including
    ``argv`` that is not a list of strings), with the same one-line message as the CLI.
    """
    return resolve_request(request_from_argv(check_argv(argv),
                                             ignore_unknown=ignore_unknown or None,
                                             environ=check_environ(environ)))


def resolve_dict(config: dict[str, Any] | CudaGraphConfig | None = None,
                 facts: dict[str, Any] | None = None, *, strict: bool = False,
                 rule_files: list[str] | None = None,
                 disabled_rules: list[str] | None = None) -> Plan:
    """Resolve a config given as a dict (every key locks) or a ``CudaGraphConfig`` object
    (only the fields the caller set lock), with deployment facts as a dict.

    A ``CudaGraphConfig`` is checked again here, so a field changed after construction
    (``cfg.decode.max_bs = -4``) is caught. Every problem with the input raises
    :class:`~cgconfig.errors.InputError`.
    """
    from cgconfig.fields.config import CudaGraphConfig

    if config is not None and not isinstance(config, (dict, CudaGraphConfig)):
        raise InputError(f"expected a dict or CudaGraphConfig, got {type(config).__name__}",
                         where="config")
    checked_facts = _check_mapping(facts, "facts")
    for name, files in (("rule_files", rule_files), ("disabled_rules", disabled_rules)):
        if files is not None:
            check_argv(files, name)
    settings = Settings(strict=strict, rule_files=list(rule_files or []),
                        disabled_rules=list(disabled_rules or []))
    return resolve_request(gather([ConfigValue(config), FactValues(checked_facts),
                                   MachineFacts(), ModelConfigFile(), SettingValues(settings)]))


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
        elif flag.value in ("int_list", "str_list"):
            kwargs.update(nargs="+", type=str)
        else:
            kwargs["type"] = str
            if flag.choices:
                kwargs["choices"] = flag.choices
        names = [flag.name, *(a for a in flag.aliases if a.startswith("--"))]
        if flag.kind == "fact" and any(n in parser._option_string_actions for n in names):
            # The launcher already owns this deployment flag (e.g. --model-path): its flag
            # wins; pass the value to resolve_namespace(facts=...) if it matters.
            continue
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
        items = value if isinstance(value, (list, tuple)) else [value]
        for index, item in enumerate(items):
            if not isinstance(item, (str, int, float)) or isinstance(item, bool):
                raise InputError(f"expected a string, got {type(item).__name__} {quote(item)}",
                                 where=f"namespace.{_dest(flag)}"
                                       + (f"[{index}]" if items is value else ""))
        argv.extend(str(item) for item in items)
    host = engine_part("sglang", "line_source")(Part(argv), entry_point=False, engine="sglang")
    sources: list[Source] = [host, FactValues(_check_mapping(facts, "facts"), fill_only=True),
                             MachineFacts(), ModelConfigFile(),
                             SettingValues(Settings(strict=strict))]
    return resolve_request(gather(sources))
