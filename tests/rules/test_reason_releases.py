"""Every rule's reason, hint and citation names the release the line is answered for (#31).

Each shipped rule is rendered at the oldest and the newest supported release of its engine
that its ``versions:`` admits; the text must name that release and no other supported one
(a rule that hard-codes ``SGLang 0.5.23`` would say so on a 0.5.19 line)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from cgconfig.line.versions import SUPPORTED, in_range, label
from cgconfig.rules.cache import shipped_pack_files
from cgconfig.rules.evaluate import fill_placeholders
from cgconfig.rules.loader import load_pack_file

PACKS = shipped_pack_files()


class _AtRelease:
    """The draft a placeholder reads, reduced to the release (other placeholders stay)."""

    def __init__(self, engine: str, version: str) -> None:
        self.engine, self.version = engine, version

    def lookup(self, path: str) -> Any:
        if path == "engine.label":
            return label(self.engine, self.version)
        if path == "engine.version":
            return self.version
        raise KeyError(path)


def _renderings() -> list[tuple[str, str, str, str]]:
    cases = []
    for path in PACKS:
        pack = load_pack_file(path)
        engine = pack.engine
        for rule in pack.rules:
            admitted = [v for v in SUPPORTED[engine] if in_range(rule.versions, v)]
            for version in sorted({admitted[0], admitted[-1]}, key=admitted.index):
                for field in ("reason", "hint", "source"):
                    text = getattr(rule, field) or ""
                    cases.append((f"{rule.id}:{field}@{version}", engine, version, text))
    return cases


RENDERINGS = _renderings()


def test_there_are_rules_to_render() -> None:
    assert len({case[0].split(":")[0] for case in RENDERINGS}) > 50


@pytest.mark.parametrize(("where", "engine", "version", "text"), RENDERINGS,
                         ids=[case[0] for case in RENDERINGS])
def test_a_rendered_text_names_no_other_release(where: str, engine: str, version: str,
                                                text: str) -> None:
    shown = fill_placeholders(text, _AtRelease(engine, version))  # type: ignore[arg-type]
    for other in SUPPORTED[engine]:
        if other == version:
            continue
        assert not re.search(rf"(?<![\d.]){re.escape(other)}(?![\d])", shown), (where, shown)
    if "{engine.label}" in text:
        assert label(engine, version) in shown
