"""The engine-version registry: exact, nearest-older and refused versions."""

from __future__ import annotations

import pytest

from cgconfig.engines import versions
from cgconfig.engines.table import load_table


@pytest.mark.parametrize("engine", sorted(versions.SUPPORTED))
def test_every_supported_version_has_its_table(engine: str) -> None:
    for version in versions.SUPPORTED[engine]:
        table = load_table(engine, version)
        assert table.version == version
        assert table.label == versions.label(engine, version)


def test_newest_is_the_default() -> None:
    for engine, supported in versions.SUPPORTED.items():
        chosen = versions.default(engine)
        assert chosen.version == supported[-1] and chosen.note is None
        assert load_table(engine) is load_table(engine, supported[-1]) or \
            load_table(engine).version == supported[-1]


def test_exact_and_spelled_versions_have_no_note() -> None:
    newest = versions.newest("sglang")
    for spelling in (newest, f"v{newest}", f"{newest}.post1", f"v{newest}-cu129"):
        chosen = versions.choose("sglang", spelling, "--engine-version")
        assert chosen.version == newest and chosen.note is None


def test_a_later_patch_of_the_newest_vllm_minor_is_answered_with_a_note() -> None:
    newest = versions.newest("vllm")
    major, minor, _ = newest.split(".")
    chosen = versions.choose("vllm", f"{major}.{minor}.9", "CGCONFIG_ENGINE_VERSION")
    assert chosen.version == newest
    assert chosen.note is not None and "nearest older supported" in chosen.note


@pytest.mark.parametrize("requested", ["0.0.1", "9.9.9", "x.y", ""])
def test_outside_the_range_is_one_line_naming_it(requested: str) -> None:
    with pytest.raises(ValueError) as raised:
        versions.choose("vllm", requested, "--engine-version")
    message = str(raised.value)
    assert "\n" not in message and versions.newest("vllm") in message
