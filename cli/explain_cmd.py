"""``cgconfig explain [KEY]``: the chain behind each value, npm ``config ls -l`` style.

    decode.backend = "disabled"                  [changed by rule role.prefill-instance-no-decode]
      ~ "disabled"  rule:role.prefill-instance-no-decode — a prefill instance ...
      ; "full"      default ; overridden by rule:role.prefill-instance-no-decode

``=`` marks an explicit input, ``~`` a change by a rule or the resolver, ``;`` a shadowed value
and who overrode it, ``!`` a rule that was skipped because the key is locked.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

from cgconfig.cli.options import CliOptions
from cgconfig.errors import CgConfigError, InputError, did_you_mean
from cgconfig.line.versions import release_label, supported_range
from cgconfig.plan import Plan
from cgconfig.provenance import ChainEntry

USER_LAYERS = ("legacy", "off-switch", "convenience", "config")


def _status(key: str, chain: list[ChainEntry], locked: bool) -> str:
    effective = [e for e in chain if e.layer != "rule-skipped"]
    winner = effective[-1]
    if winner.layer in ("rule", "resolver"):
        if locked and winner.layer == "rule":
            return f"explicit, overridden by {winner.source}"
        return f"changed by {winner.source}" if winner.layer == "rule" else "derived by resolver"
    if winner.layer in USER_LAYERS:
        blocked = [e for e in chain if e.layer == "rule-skipped"]
        return "explicit, locked" + (f"; {len(blocked)} rule(s) skipped" if blocked else "")
    return "default"


def settings(plan: Plan) -> dict[str, dict[str, Any]]:
    """Per key: value, default, explicit/locked flags, a status and the chain (JSON form)."""
    out: dict[str, dict[str, Any]] = {}
    for key, chain in plan.provenance.items():
        group, name = key.split(".", 1)
        value = plan.options[name] if group == "options" else plan.config[group][name]
        locked = key in plan.locked
        out[key] = {
            "value": value,
            "default": chain[0].value,
            "explicit": locked,
            "locked": locked,
            "status": _status(key, chain, locked),
            "chain": [e.to_dict() for e in chain],
        }
    return out


#: ``engine.<name>`` keys explain accepts (the plan's ``engine`` block, SGLang input).
ENGINE_KEYS = tuple(f"engine.{name}" for name in (
    "device", "attention_backend", "prefill_attention_backend", "decode_attention_backend",
    "chunked_prefill_size", "mem_fraction_static", "max_running_requests",
    "speculative_num_draft_tokens"))


#: The captured decode sizes, explained when the capture filter changed the configured list.
CAPTURE_KEY = "capture.decode.sizes"


def capture_settings(plan: Plan, *, named: bool = False) -> dict[str, dict[str, Any]]:
    """``capture.decode.sizes`` when SGLang's capture filter changed the configured decode
    list (``--max-running-requests``, alignment), or when ``named``: the configured list, then
    each filter step."""
    steps = [d for d in plan.decisions if any(c.key == CAPTURE_KEY for c in d.changes)]
    decode = plan.capture.get("decode")
    if not isinstance(decode, dict) or "sizes" not in decode:
        return {}
    chain = [{"source": "decode.bs", "layer": "default",
              "value": plan.config.get("decode", {}).get("bs"),
              "why": "the configured decode sizes"}]
    if not steps and not named:
        return {}
    if not steps:  # asked for by name: the configured list, unchanged
        return {CAPTURE_KEY: {"value": decode["sizes"], "default": None, "explicit": False,
                              "locked": False, "status": "as configured (no filter changed it)",
                              "chain": chain}}
    for d in steps:
        change = next(c for c in d.changes if c.key == CAPTURE_KEY)
        chain.append({"source": d.rule, "layer": "resolver", "value": change.after,
                      "why": d.why})
    return {CAPTURE_KEY: {"value": plan.capture["decode"]["sizes"], "default": None,
                          "explicit": False, "locked": False,
                          "status": f"changed by {steps[-1].rule}", "chain": chain}}


def engine_settings(plan: Plan) -> dict[str, dict[str, Any]]:
    """The engine block as explain entries: one chain step, the flag or the upstream function
    that set the value, with why. Shown when named, or with ``--all``."""
    out: dict[str, dict[str, Any]] = {}
    for name, entry in plan.engine.items():
        given = entry["source"].startswith("--")
        out[f"engine.{name}"] = {
            "value": entry["value"], "default": None, "explicit": False, "locked": False,
            "status": "given" if given else f"set by {release_label('sglang', plan.engine_version)}",
            "chain": [{"source": entry["source"], "layer": "config" if given else "engine",
                       "value": entry["value"], "why": entry["why"]}]}
    return out


def interesting(key: str, info: dict[str, Any]) -> bool:
    """Keys worth showing without ``--all``: explicit, or moved away from the default (engine
    settings only when named or with ``--all``)."""
    if key.startswith("engine."):
        return False
    if key == CAPTURE_KEY:
        return str(info["status"]).startswith("changed")
    return bool(info["explicit"]) or (len(info["chain"]) > 1 and info["status"] != "default")


def _fmt(value: Any) -> str:
    if isinstance(value, list) and len(value) > 8:
        return "[" + ", ".join(map(str, value[:6])) + f", …, {value[-1]}] ({len(value)})"
    return json.dumps(value)


def render_key(key: str, info: dict[str, Any]) -> list[str]:
    """Lines for one key: headline, then winner first and shadowed values after."""
    lines = [f"{key} = {_fmt(info['value'])}    [{info['status']}]"]
    chain = info["chain"]
    effective = [e for e in chain if e["layer"] != "rule-skipped"]
    winner = effective[-1]
    for entry in reversed(chain):
        if entry["layer"] == "rule-skipped":
            lines.append(f"  ! {entry['source']}: {entry.get('why', '')}")
            continue
        if entry is winner:
            mark = "=" if entry["layer"] in USER_LAYERS else ("~" if entry["layer"] in (
                "rule", "resolver") else "*")
            tail = f" — {entry['why']}" if entry.get("why") else ""
            at = f" at {entry['at']}" if entry.get("at") else ""
            lines.append(f"  {mark} {_fmt(entry['value']):<14} {entry['source']}{at}{tail}")
        elif entry["value"] is None and entry["layer"] == "default":
            continue  # a declared "no default" (derived later) is not a value to show
        else:
            later = effective[effective.index(entry) + 1] if entry in effective else winner
            at = f" at {entry['at']}" if entry.get("at") else ""
            why = f" ({entry['why']})" if entry.get("why") else ""
            lines.append(f"  ; {_fmt(entry['value']):<14} {entry['source']}{at}{why} ; "
                         f"overridden by {later['source']}")
    return lines


if TYPE_CHECKING:
    from cgconfig.files.launch import Launch


def run_explain(argv: list[str], launch: Launch | None = None) -> int:
    """Resolve ``argv`` and explain one key or every interesting key; returns the exit code.
    With ``--from FILE``, once per launch of the file (``launch``)."""
    from cgconfig.cli.errors import note, report
    from cgconfig.cli.from_file import labelled, run_each
    from cgconfig.cli.options import HOST_FLAGS, parse_options

    if launch is None:
        each = run_each(argv, lambda words, found: run_explain(words, found))
        if each is not None:
            return each
    options = CliOptions()
    file_notes: list[str] = []
    try:
        from cgconfig.api import resolve_request
        from cgconfig.cli.cost_render import COST_KEYS
        from cgconfig.fields.table import all_config_keys
        from cgconfig.sources.command_line import request_from_split, split_command_line

        # Keys written before a launch line (`explain KEY python -m sglang.launch_server ...`)
        # are explain's own, not words of a wrapper in front of the entry point.
        known = {*all_config_keys(), *ENGINE_KEYS, CAPTURE_KEY, *COST_KEYS}
        lead = 0
        while lead < len(argv) and argv[lead] in known:
            lead += 1
        if launch is None:
            split = split_command_line(argv[lead:], HOST_FLAGS, environ=os.environ)
            options = parse_options(split.parts.get(HOST_FLAGS.owner))
            request, keys = request_from_split(split, allow_positionals=True, environ=os.environ)
        else:
            from cgconfig.files.plan import launch_request

            request, split, file_notes = launch_request(launch, argv[lead:], host=HOST_FLAGS)
            file_notes = [*launch.notes, *file_notes]
            options = parse_options(split.parts.get(HOST_FLAGS.owner))
            keys = []
        keys = [*argv[:lead], *keys]
        for key in keys:
            if key not in all_config_keys() and key not in (*ENGINE_KEYS, CAPTURE_KEY,
                                                            *COST_KEYS):
                raise InputError(f"unknown key {key!r}", where="explain",
                                 suggestion=did_you_mean(key, [*all_config_keys(), *ENGINE_KEYS]),
                                 allowed="decode.<key>, prefill.<key>, options.<key>, "
                                         "engine.<key>")
        _reject_resolve_only(options)
        plan = resolve_request(request)
    except CgConfigError as error:
        return report(labelled(error, launch), as_json=options.as_json)
    for message in file_notes:
        note("note", message)
    table = settings(plan)
    table.update(capture_settings(plan, named=CAPTURE_KEY in keys))
    table.update(engine_settings(plan))
    table.update({k: {"cost": plan.cost} for k in COST_KEYS if k in keys})
    missing = [k for k in keys if k not in table]
    if missing:
        return report(InputError(f"{missing[0]} is not part of this plan", where="explain",
                                 hint="the engine block (engine.*) and capture.decode.sizes "
                                      f"describe {supported_range('sglang')} lines only"),
                      as_json=options.as_json)
    for message in plan.deprecations:
        note("deprecated", message)
    for message in plan.notes:
        note("note", message)
    chosen = keys or [k for k, info in table.items() if options.show_all
                      or interesting(k, info)]
    fmt = options.output
    if fmt != "table":
        body = {"schema_version": plan.schema_version,
                "settings": {k: table[k] for k in chosen},
                "decisions": [d.to_dict() for d in plan.decisions
                              if not keys or any(c.key in keys for c in d.changes)
                              or any(k in keys for k in _rule_keys(d))],
                "warnings": plan.warnings}
        from cgconfig.cli.output import write_data

        write_data(body, fmt)
        return 0
    from cgconfig.cli.width import width, wrap

    limit = width(None)  # the terminal's or COLUMNS; piped without COLUMNS, one line each

    def write(line: str, indent: int) -> None:
        sys.stdout.write("".join(part + "\n" for part in wrap(line, limit, indent)))

    if not chosen:
        write("Every key has its default value (use --all to list them).", 4)
    for key in chosen:
        if key in COST_KEYS:
            from cgconfig.cli.cost_render import explain_lines

            for line in explain_lines(plan, key):
                write(line, 6)
            continue
        head, *chain = render_key(key, table[key])
        write(head, 4)
        for line in chain:
            write(line, 19 if line.startswith(("  ~", "  =", "  *", "  ;")) else 6)
        related = [d for d in plan.decisions if any(c.key == key for c in d.changes)
                   and d.hint]
        for d in related:
            write(f"    override {d.rule}: {d.hint}", 6)
    for message in plan.warnings:
        note("warning", message)
    return 0


def _reject_resolve_only(options: CliOptions) -> None:
    """``--emit`` and ``--check`` belong to ``resolve``; explain must not silently drop them."""
    for given, flag in ((options.emit, "--emit"), (options.check, "--check")):
        if given:
            raise InputError(f"{flag} is a resolve flag; explain prints the chain behind each "
                             "value", where="explain",
                             hint=f"run `cgconfig resolve {flag} ...` instead")


def _rule_keys(decision: Any) -> list[str]:
    return [c.key for c in decision.changes]
