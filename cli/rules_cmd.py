"""``cgconfig rules list|show|validate``, under the output contract of :mod:`cgconfig.cli.output`.

Exit codes: 0 success, 2 bad input (unknown rule id, unreadable or invalid pack, and an example
that does not behave as the pack says: the pack is wrong, so it is bad input).
"""

from __future__ import annotations

import sys
from typing import Any

from cgconfig.errors import EXIT_INPUT, CgConfigError, one_line


def list_rules(extra: list[str], fmt: str = "table") -> int:
    """Print every rule (id, kind, pack, title) in application order; returns the exit code."""
    from cgconfig.cli.output import check_format, fail, write_data
    from cgconfig.rules.loader import load_rule_set

    try:
        check_format(fmt)
        rule_set = load_rule_set(extra)
    except CgConfigError as error:
        return fail(error, fmt)
    rows = [{"id": r.id, "kind": r.kind, "pack": rule_set.pack_of[r.id], "title": r.title}
            for r in rule_set.rules]
    if fmt != "table":
        write_data({"rules": rows}, fmt)
        return 0
    from rich.table import Table
    from rich.text import Text

    from cgconfig.cli.render import console as plan_console

    table = Table(title=f"{len(rows)} rules, in application order")
    for column in ("id", "kind", "pack", "title"):
        table.add_column(column)
    for row in rows:
        # Pack names and titles are user text, not rich markup.
        table.add_row(*(Text(str(row[c])) for c in ("id", "kind", "pack", "title")))
    plan_console().print(table)
    return 0


def show_rule(rule_id: str, extra: list[str], fmt: str = "table") -> int:
    """Print one rule with its pack (YAML text for people, ``-o json|yaml`` for machines);
    returns the exit code."""
    from cgconfig.cli.output import check_format, fail, write_data, yaml_text
    from cgconfig.rules.loader import load_rule_set

    try:
        check_format(fmt)
        rule_set = load_rule_set(extra)
        rule = rule_set.validated(rule_id)
    except CgConfigError as error:
        return fail(error, fmt)
    data: dict[str, Any] = rule.model_dump(mode="json", by_alias=True, exclude_none=True)
    if fmt != "table":
        write_data({"pack": rule_set.pack_of[rule.id], **data}, fmt)
        return 0
    sys.stdout.write(f"# pack: {rule_set.pack_of[rule.id]}\n")
    sys.stdout.write(yaml_text(data))
    return 0


#: Failing examples ``rules validate`` prints one line each; the rest are counted.
MAX_FAILURE_LINES = 20


def validate_pack(path: str, fmt: str = "table") -> int:
    """Validate a pack and run its examples with the shipped packs; returns the exit code
    (0 valid, 2 invalid pack or failing example)."""
    from pathlib import Path

    from cgconfig.cli.output import check_format, fail, write_data
    from cgconfig.cli.rules_examples import run_example
    from cgconfig.limits import check_examples
    from cgconfig.rules.cache import shipped_pack_files
    from cgconfig.rules.loader import load_pack_file, load_rule_set

    shipped = Path(path).resolve() in {p.resolve() for p in shipped_pack_files()}
    extra = [] if shipped else [path]
    try:
        check_format(fmt, ("table", "json"))
        pack = load_pack_file(path)
        check_examples({r.id: len(r.examples) for r in pack.rules}, where=path)
        rule_set = load_rule_set(extra)  # a user pack's ids must not clash with the shipped ones
        failures = []
        count = 0
        for rule in pack.rules:
            for index, example in enumerate(rule.examples):
                count += 1
                problem = run_example(rule, example, extra_packs=extra, rules=rule_set)
                if problem:
                    failures.append(f"{rule.id} example {index}: {problem}")
    except CgConfigError as error:
        return fail(error, fmt)
    if fmt == "json":
        write_data({"path": path, "valid": not failures, "rules": len(pack.rules),
                    "examples": count, "failures": failures}, fmt)
    for failure in failures[:MAX_FAILURE_LINES]:
        sys.stderr.write(f"cgconfig: error: {path}: example failed: {one_line(failure)}\n")
    if len(failures) > MAX_FAILURE_LINES:
        sys.stderr.write(f"cgconfig: error: {path}: … and {len(failures) - MAX_FAILURE_LINES} "
                         "more failing examples (-o json lists them all)\n")
    if failures:
        return EXIT_INPUT
    if fmt == "table":
        sys.stdout.write(f"{path}: {len(pack.rules)} rules valid, {count} examples pass\n")
    return 0
