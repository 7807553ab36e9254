"""``cgconfig rules list|show|validate``."""

from __future__ import annotations

import sys

from cgconfig.errors import CgConfigError


def list_rules(extra: list[str]) -> int:
    """Print the rule table; returns the exit code."""
    from rich.table import Table

    from cgconfig.cli.errors import report
    from cgconfig.cli.render import console
    from cgconfig.rules.loader import load_rule_set

    try:
        rule_set = load_rule_set(extra)
    except CgConfigError as error:
        return report(error)
    table = Table(title=f"{len(rule_set.rules)} rules, in application order")
    for column in ("id", "kind", "pack", "title"):
        table.add_column(column)
    for rule in rule_set.rules:
        table.add_row(rule.id, rule.kind, rule_set.pack_of[rule.id], rule.title)
    console().print(table)
    return 0


def show_rule(rule_id: str, extra: list[str]) -> int:
    """Print one rule in YAML form with its pack; returns the exit code."""
    import yaml

    from cgconfig.cli.errors import report
    from cgconfig.rules.loader import load_rule_set

    try:
        rule_set = load_rule_set(extra)
        rule = rule_set.validated(rule_id)
    except CgConfigError as error:
        return report(error)
    sys.stdout.write(f"# pack: {rule_set.pack_of[rule.id]}\n")
    data = rule.model_dump(mode="json", by_alias=True, exclude_none=True)
    sys.stdout.write(yaml.safe_dump(data, sort_keys=False, width=100))
    return 0


def validate_pack(path: str) -> int:
    """Validate a pack and run its examples with the shipped packs; returns the exit code."""
    from pathlib import Path

    from cgconfig.cli.errors import report
    from cgconfig.rules.cache import shipped_pack_files
    from cgconfig.rules.examples import run_example
    from cgconfig.rules.loader import load_pack_file, load_rule_set

    shipped = Path(path).resolve() in {p.resolve() for p in shipped_pack_files()}
    extra = [] if shipped else [path]
    try:
        pack = load_pack_file(path)
        load_rule_set(extra)  # a user pack's ids must not clash with the shipped ones
        failures = []
        count = 0
        for rule in pack.rules:
            for index, example in enumerate(rule.examples):
                count += 1
                problem = run_example(rule, example, extra_packs=extra)
                if problem:
                    failures.append(f"{rule.id} example {index}: {problem}")
    except CgConfigError as error:
        return report(error)
    for failure in failures:
        sys.stderr.write(f"cgconfig: example failed: {failure}\n")
    if failures:
        return 1
    sys.stdout.write(f"{path}: {len(pack.rules)} rules valid, {count} examples pass\n")
    return 0
