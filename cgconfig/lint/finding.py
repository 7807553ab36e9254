"""One finding: which kind, where (the file line of the flag that causes it), the engine's
reason and the fix."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from cgconfig.lint.catalog import BY_ID, Severity


@dataclass(frozen=True)
class Finding:
    """What ``cgconfig check`` reports about one launch (or one file)."""

    id: str
    """The kind's stable id (``CG001``)."""
    file: str
    line: int
    """1-based line of the flag that causes it (the launch's first line when no flag does)."""
    message: str
    """What is wrong, with the engine's reason."""
    fix: str | None = None
    """How to fix it, in the engine's flags."""
    severity: Severity | None = None
    """Set by the run (the kind's default or the configuration's override)."""
    subject: str = ""
    """The flag or key it is about: with the id and the file, what a baseline entry matches
    (so moving a line does not make an old finding new)."""
    launch_line: int = 0
    """Line of the launch's command."""
    engine: str | None = None
    """``SGLang 0.5.23``: the release the launch was checked at."""
    rule: str | None = None
    """The plan decision behind it (a rule id or a resolver step), when one is."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Numbers a machine reader may want (the eager range, the share)."""

    @property
    def name(self) -> str:
        """The kind's short name."""
        return BY_ID[self.id].name

    @property
    def fingerprint(self) -> str:
        """Stable across line moves: id, file, subject and the message without numbers' lines."""
        text = "\0".join((self.id, self.file, self.subject, self.rule or ""))
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]

    def with_severity(self, severity: Severity) -> Finding:
        """The same finding at ``severity``."""
        return replace(self, severity=severity)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``-o json``)."""
        out: dict[str, Any] = {"id": self.id, "name": self.name, "severity": self.severity,
                               "file": self.file, "line": self.line, "message": self.message}
        if self.fix:
            out["fix"] = self.fix
        out["subject"] = self.subject
        out["launch_line"] = self.launch_line
        if self.engine:
            out["engine"] = self.engine
        if self.rule:
            out["rule"] = self.rule
        if self.extra:
            out["extra"] = self.extra
        out["fingerprint"] = self.fingerprint
        return out
