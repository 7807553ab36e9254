"""Findings the user has accepted: ``# cgconfig: ignore[CG001]`` on the finding's line or the
line above (also on or above the launch's first line, for the whole launch), and a baseline
file of accepted findings (``--baseline FILE``, written with ``--write-baseline``)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from cgconfig.errors import InputError
from cgconfig.lint.catalog import lookup
from cgconfig.lint.finding import Finding

MARKER = "cgconfig: ignore"
BASELINE_VERSION = 1
#: Entries one baseline may hold.
MAX_BASELINE_ENTRIES = 100_000


def inline_ignores(row: str) -> set[str] | None:
    """The ids an ignore comment on ``row`` names (``{"*"}`` for a bare ``cgconfig: ignore``),
    or ``None`` when it has none. Names (``eager-requests``) are read as their ids."""
    at = row.find(MARKER)
    if at < 0:
        return None
    rest = row[at + len(MARKER):]
    if not rest.startswith("["):
        return {"*"}
    inside = rest[1:].split("]", 1)[0]
    out = set()
    for item in inside.split(","):
        kind = lookup(item)
        out.add(kind.id if kind is not None else item.strip().upper())
    return out


#: Rows that open a documentation code block: a comment above one covers the block's launches.
_BLOCK_OPENERS = ("```", "~~~", ".. code", ".. sourcecode", ".. prompt")


def _lines_to_read(finding: Finding, rows: list[str]) -> set[int]:
    lines = {finding.line, finding.line - 1, finding.launch_line, finding.launch_line - 1}
    above = finding.launch_line - 1
    if 1 <= above <= len(rows) and rows[above - 1].lstrip().startswith(_BLOCK_OPENERS):
        lines.add(above - 1)  # <!-- cgconfig: ignore[...] --> just above a code fence
    return lines


def suppressed_inline(finding: Finding, rows: list[str]) -> bool:
    """Whether a comment on the finding's line, the line above, or on or above its launch's
    first line (above the code block it opens) names the finding's id."""
    for line in _lines_to_read(finding, rows):
        if 1 <= line <= len(rows):
            ids = inline_ignores(rows[line - 1])
            if ids is not None and ("*" in ids or finding.id in ids):
                return True
    return False


def read_baseline(text: str, where: str) -> Counter[str]:
    """The fingerprints a baseline accepts, each as often as it was recorded."""
    from cgconfig.docio import load_json_text

    data = load_json_text(text, where)
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION or \
            not isinstance(data.get("findings"), list):
        raise InputError("not a cgconfig baseline", where=where,
                         hint=f"write one with `cgconfig check --write-baseline {where} PATH`")
    entries = data["findings"]
    if len(entries) > MAX_BASELINE_ENTRIES:
        raise InputError(f"more than {MAX_BASELINE_ENTRIES} entries", where=where)
    out: Counter[str] = Counter()
    for index, entry in enumerate(entries):
        fingerprint = entry.get("fingerprint") if isinstance(entry, dict) else None
        if not isinstance(fingerprint, str) or not fingerprint.isalnum() or len(fingerprint) > 64:
            raise InputError("an entry without a fingerprint", where=f"{where} findings[{index}]")
        out[fingerprint] += 1
    return out


def apply_baseline(findings: Iterable[Finding], accepted: Counter[str]) -> list[Finding]:
    """The findings a baseline does not account for (each entry accounts for one)."""
    left = Counter(accepted)
    out = []
    for finding in findings:
        if left[finding.fingerprint] > 0:
            left[finding.fingerprint] -= 1
            continue
        out.append(finding)
    return out


def baseline_text(findings: Iterable[Finding]) -> str:
    """A baseline accepting ``findings`` (sorted, one entry each, with what it was)."""
    entries = [{"fingerprint": f.fingerprint, "id": f.id, "file": f.file, "subject": f.subject,
                "line": f.line, "message": f.message} for f in findings]
    entries.sort(key=lambda e: (e["file"], e["line"], e["id"], e["fingerprint"]))
    return json.dumps({"version": BASELINE_VERSION, "tool": "cgconfig check",
                       "findings": entries}, indent=2, ensure_ascii=False) + "\n"
