"""The engine release a script's own words pin: ``pip install "sglang[all]==0.4.2.post4"``
(a Dockerfile's ``RUN``, a shell script, SkyPilot's ``setup:``), a requirements line a
here-document writes next to the launch (``vllm==0.10.1+gptoss``), and a Dockerfile's
``FROM`` image, whose tag names the release as a container's image does.

Only an exact pin (``==``) names a release; ``>=``, ``~=`` and a bare name do not. The local
label after ``+`` (``+gptoss``, ``+cu129``) names a build of that release
(``versions.parse_version``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cgconfig.files.shell import Statement
from cgconfig.line.registry import ROWS


def _pinned_engine(distribution: str) -> str | None:
    """The engine whose PyPI ``distribution`` a pin names: a registry row whose releases are
    version numbers (``release_from_tags``) and that lists the distribution."""
    return next((row.name for row in ROWS if row.release_from_tags
                 and distribution in row.distributions), None)


def pin_of(text: str) -> tuple[str, str] | None:
    """(engine, version) a requirement ``text`` pins exactly (``sglang[all]==0.4.2.post4``
    → ``("sglang", "0.4.2.post4")``; ``vllm == 0.10.1+gptoss ; python_version>'3'``), or
    ``None``."""
    requirement = text.split(";", 1)[0].split("#", 1)[0].strip()
    name, sep, version = requirement.partition("==")
    if not sep or version.startswith("="):
        return None  # not an exact pin (``===`` is an arbitrary-equality string)
    base = name.split("[", 1)[0].strip().lower().replace("_", "-")
    version = version.strip()
    engine = _pinned_engine(base)
    if engine is None or not version[:1].isdigit() or len(version) > 64:
        return None
    return engine, version


def script_pins(statements: Sequence[Statement], where: str) -> dict[str, tuple[str, str]]:
    """Engine → (``engine==version``, origin) for the first pin of each engine among the
    statements' words and the requirement lines their here-documents write."""
    found: dict[str, tuple[str, str]] = {}
    for statement in statements:
        for word in statement.words:
            _add(found, word.text, f"pip pin {word.text} ({where}:{word.line})")
        for name, body in statement.writes.items():
            for offset, row in enumerate(body.splitlines()):
                _add(found, row, f"requirement {row.strip()} ({name}, written by {where}:"
                                 f"{statement.line + 1 + offset})")
    return found


def _add(found: dict[str, tuple[str, str]], text: str, origin: str) -> None:
    pinned = pin_of(text)
    if pinned is not None and pinned[0] not in found:
        found[pinned[0]] = (f"{pinned[0]}=={pinned[1]}", origin)


def from_image(statements: Iterable[Statement]) -> tuple[str, int] | None:
    """(image, line) of a Dockerfile's last ``FROM`` (the stage the ``CMD`` runs in), or
    ``None``: ``FROM [--platform=P] IMAGE [AS NAME]``."""
    found: tuple[str, int] | None = None
    for statement in statements:
        words = [w for w in statement.words if not w.text.startswith("--")]
        if len(words) >= 2 and words[0].text == "FROM":
            found = (words[1].text, words[1].line)
    return found
