"""The plan's ``engine`` block against SGLang's own values, on every recorded case SGLang resolved.

Each recorded answer carries SGLang 0.5.23's resolved settings in ``extra`` (attention backends,
chunked-prefill size, ``mem_fraction_static``, running-request limit, draft tokens, device).
Used by ``test_engine_block.py`` (a ratchet over ``known_engine_differences.json``) and by hand::

    python tests/fidelity/compare_engine.py                 # agreement per field
    python tests/fidelity/compare_engine.py --ids 17        # one case: SGLang's and cgconfig's
    python tests/fidelity/compare_engine.py --update-known  # record today's open differences
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import compare

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError

#: The ``extra`` fields the engine block reproduces, in report order.
FIELDS = ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
          "chunked_prefill_size", "mem_fraction_static", "max_running_requests",
          "speculative_num_draft_tokens", "device")
KNOWN_FILE = compare.HERE / "known_engine_differences.json"


def engine_values(case: dict[str, Any]) -> dict[str, Any] | None:
    """cgconfig's engine values for a case (``None`` when cgconfig refuses the input)."""
    try:
        plan = resolve_args(compare.sglang_argv(case))
    except CgConfigError:
        return None
    return {name: entry["value"] for name, entry in plan.engine.items()}


def field_differences(case: dict[str, Any]) -> list[str]:
    """The engine fields on which cgconfig and SGLang differ (empty: agreement)."""
    got = engine_values(case)
    if got is None:
        return ["cgconfig-refuses"]
    want = case["answer"]["extra"]
    return [name for name in FIELDS if name in want and got.get(name) != want[name]]


def resolved_cases() -> list[dict[str, Any]]:
    """The recorded cases SGLang resolved (only those carry a final config)."""
    return [c for c in compare.load("sglang") if not c["answer"]["error"]]


def differences() -> dict[int, list[str]]:
    """Case id → differing fields, for every resolved case with a difference (a case cgconfig
    refuses is listed as ``["cgconfig-refuses"]``; ``compare.py`` tracks those)."""
    found = {}
    for case in resolved_cases():
        fields = field_differences(case)
        if fields:
            found[case["id"]] = fields
    return found


def known() -> dict[int, list[str]]:
    """The recorded open differences: case id → fields."""
    return {int(k): v for k, v in json.loads(KNOWN_FILE.read_text()).items()}


def open_differences() -> dict[int, list[str]]:
    """The field differences on cases both SGLang and cgconfig resolve (the ratchet's list)."""
    return {cid: f for cid, f in differences().items() if f != ["cgconfig-refuses"]}


def write_known() -> None:
    """Record today's field differences as the open list."""
    data = {str(k): v for k, v in sorted(open_differences().items())}
    KNOWN_FILE.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")


def main(argv: list[str]) -> None:
    if argv[:1] == ["--update-known"]:
        write_known()
        return
    if argv[:1] == ["--ids"]:
        for cid in argv[1:]:
            case = {c["id"]: c for c in compare.load("sglang")}[int(cid)]
            print("argv:", " ".join(compare.sglang_argv(case)))
            print("SGLang:  ", json.dumps({k: case["answer"]["extra"].get(k) for k in FIELDS}))
            print("cgconfig:", json.dumps(engine_values(case)))
        return
    cases = resolved_cases()
    diffs = differences()
    refused = sum(1 for fields in diffs.values() if fields == ["cgconfig-refuses"])
    per_field = Counter(name for fields in diffs.values() for name in fields)
    planned = len(cases) - refused
    print(f"engine block: {len(cases) - len(diffs)}/{len(cases)} resolved SGLang cases agree "
          f"on every field; cgconfig refuses {refused} of them (see compare.py)")
    for name in FIELDS:
        bad = per_field.get(name, 0)
        print(f"  {name:30s} {planned - bad:5d}/{planned} ({100 * (planned - bad) / planned:.1f} %)")

if __name__ == "__main__":
    main(sys.argv[1:])
