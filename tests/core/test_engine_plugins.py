"""Every engine is a plug-in with every part the core asks for (``cgconfig.line.plugins``),
and only a line of an engine loads that engine's package."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cgconfig.line import registry
from cgconfig.line.plugins import PACKAGES, PARTS, part
from cgconfig.line.versions import SUPPORTED


def test_every_supported_engine_is_a_plugin() -> None:
    assert set(PACKAGES) == set(SUPPORTED)


@pytest.mark.parametrize("engine", sorted(PACKAGES))
@pytest.mark.parametrize("name", sorted(PARTS))
def test_every_engine_has_every_part(engine: str, name: str) -> None:
    module, attribute = PARTS[name]
    imported = __import__(f"{PACKAGES[engine]}.{module}", fromlist=[attribute])
    assert hasattr(imported, attribute), f"{engine}: {module}.{attribute} is missing"
    assert part(engine, name) is getattr(imported, attribute)


@pytest.mark.parametrize("engine", registry.names())
def test_every_engine_has_steps_ending_in_a_plan(engine: str) -> None:
    steps = part(engine, "steps")
    assert steps[0][0] == "validate-facts" and steps[-1][0] == "plan"
    assert part(engine, "stages")[-1] == "resolved"


def test_an_unknown_engine_is_named() -> None:
    with pytest.raises(KeyError, match="known: " + ", ".join(registry.names())):
        part("tgi", "steps")


@pytest.mark.parametrize(("line", "others"), [
    (["--cuda-graph-max-bs-decode", "8"], ("vllm", "trtllm")),
    (["vllm", "serve", "m", "-O3"], ("trtllm",)),
])
def test_a_line_loads_only_its_own_engines_modules(line: list[str], others: tuple[str, ...]) -> None:
    """Of another engine only its data loads: its stage list (the rule-pack cache key) and its
    dialect's flags (the splitter)."""
    code = (f"import sys; from cgconfig import resolve_args; resolve_args({line!r}); "
            "print(' '.join(m for m in sys.modules if m.startswith('cgconfig.engines.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, env={"PATH": "/usr/bin:/bin"}).stdout.split()
    for engine in others:
        package = f"cgconfig.engines.{engine}"
        assert sorted(m for m in loaded if m.startswith(f"{package}.")) == [
            f"{package}.flags", f"{package}.stages"], loaded
