"""The keys' own SGLang flags in SGLang's flag tables: ``modelled``, feeding their key.

A key's :class:`~cgconfig.fields.spec.FlagSpelling` is the one place its flag is named; the
classification of that flag in every SGLang flag table (``cgconfig/engines/sglang/tables/*.json``,
one per version) is written from it, both by ``scripts/gen_engine_tables.py`` when a table is
made from the engine and by ``python -m cgconfig.fields.generate`` on the checked-in tables,
so a new key needs no hand-written overlay entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cgconfig.fields.spec import FieldSpec

SGLANG_TABLES = Path(__file__).resolve().parents[1] / "engines" / "sglang" / "tables"


def key_flags(specs: list[FieldSpec]) -> dict[str, tuple[str, bool]]:
    """Each SGLang spelling a key declares (flag and aliases) → (key, graph effect)."""
    out: dict[str, tuple[str, bool]] = {}
    for spec in specs:
        if spec.flag is not None and not spec.key.startswith("facts."):
            for spelling in (spec.flag.flag, *spec.flag.aliases):
                out[spelling] = (spec.key, spec.flag.graph_effect)
    return out


def classify(rows: list[dict[str, Any]], specs: list[FieldSpec]) -> None:
    """Mark each table row that is a key's flag ``modelled``, feeding that key."""
    declared = key_flags(specs)
    for row in rows:
        hit = next((declared[s] for s in row["options"] if s in declared), None)
        if hit is not None:
            row["status"], row["cgconfig"], row["graph_effect"] = "modelled", hit[0], hit[1]


def tables(specs: list[FieldSpec]) -> dict[Path, str]:
    """Every checked-in SGLang flag table, with the keys' flags classified."""
    out = {}
    for path in sorted(SGLANG_TABLES.glob("sglang-*.json")):
        table = json.loads(path.read_text(encoding="utf-8"))
        classify(table["flags"], specs)
        out[path] = json.dumps(table, indent=1, sort_keys=False) + "\n"
    return out
