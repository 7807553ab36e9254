"""``cgconfig check -o sarif``: SARIF 2.1.0 (OASIS), as GitHub code scanning reads it: one run,
the catalogue as the driver's rules, one result per finding with its file line, a stable
partial fingerprint, and the fix in the message and the result's properties."""

from __future__ import annotations

from typing import Any

from cgconfig.lint.catalog import KINDS
from cgconfig.lint.report import Report

SCHEMA_URI = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
              "sarif-schema-2.1.0.json")
_LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def _uri(path: str) -> str:
    """A relative file URI reference (``docs/a b.md`` → ``docs/a%20b.md``)."""
    from urllib.parse import quote

    if path == "-":
        return "stdin"
    return quote(path.replace("\\", "/").removeprefix("./"), safe="/-_.~")


def sarif_document(report: Report, version: str) -> dict[str, Any]:
    """The SARIF log of ``report``."""
    index = {k.id: i for i, k in enumerate(KINDS)}
    rules = [{"id": k.id, "name": k.name, "shortDescription": {"text": k.title},
              "fullDescription": {"text": k.title},
              "defaultConfiguration": {"level": _LEVEL[k.severity]}} for k in KINDS]
    results = []
    for f in report.findings:
        text = f.message + (f" Fix: {f.fix}" if f.fix else "")
        result: dict[str, Any] = {
            "ruleId": f.id, "ruleIndex": index[f.id], "level": _LEVEL[f.severity or "note"],
            "message": {"text": text},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.file), "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": max(f.line, 1)}}}],
            "partialFingerprints": {"cgconfigFinding/v1": f.fingerprint},
            "properties": {"subject": f.subject},
        }
        if f.fix:
            result["properties"]["fix"] = f.fix
        if f.engine:
            result["properties"]["engine"] = f.engine
        if f.rule:
            result["properties"]["decision"] = f.rule
        results.append(result)
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "cgconfig", "version": version, "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"description": {
            "text": "the folder cgconfig check ran in"}}},
        "results": results,
        "columnKind": "unicodeCodePoints"}]}
