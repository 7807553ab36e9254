"""The engine-version registry: exact, nearest-older and refused versions."""

from __future__ import annotations

import pytest

from cgconfig.line import versions
from cgconfig.line.table import load_table


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
    for spelling in ("0.5.23", "v0.5.23", "0.5.23+cu129", " 0.5.23\t"):
        chosen = versions.choose("sglang", spelling, "--engine-version")
        assert chosen.version == "0.5.23" and chosen.note is None


def test_a_release_written_short_is_that_release() -> None:
    """M5 (#35): under PEP 440 ``0.33`` is ``0.33.0``, not the release before it."""
    assert versions.choose("vllm", "0.33", "--engine-version").version == "0.33.0"
    assert versions.choose("vllm", "0.21", "--engine-version").version == "0.21.0"
    assert versions.choose("vllm", "0.33", "--engine-version").note is None


@pytest.mark.parametrize(("engine", "requested", "answered", "kind"), [
    ("vllm", "0.33.0rc1", "0.32.0", "a pre-release of 0.33.0"),
    ("vllm", "0.33.0.dev5", "0.32.0", "a development release of 0.33.0"),
    ("sglang", "0.5.23.post1", "0.5.23", "a post-release of 0.5.23"),
    ("sglang", "0.5.21rc2", "0.5.20", "a pre-release of 0.5.21"),
])
def test_pre_and_post_releases_are_ordered_as_pep_440_orders_them(
        engine: str, requested: str, answered: str, kind: str) -> None:
    """M6 (#35): rc/dev precede their release, post follows it, and the note names which."""
    chosen = versions.choose(engine, requested, "--engine-version")
    assert chosen.version == answered
    assert chosen.note is not None and kind in chosen.note and "PEP 440" in chosen.note


def test_a_pre_release_of_the_oldest_release_is_outside_the_range() -> None:
    """M6 (#35): ``<oldest>rc0`` precedes the oldest supported SGLang release."""
    with pytest.raises(ValueError, match="is not supported"):
        versions.choose("sglang", f"{versions.oldest('sglang')}rc0", "--engine-version")


@pytest.mark.parametrize("requested", [
    "0.27.1==0.28.0", "0.27.1x", "0.5.20;id", "0.27.1\x1b[31m", "0.27.1\u200b",
    "0.27.1\n0.28.0", "0.33.\u0663", "\uff10.33.0", "0.27.1 0.28.0"])
def test_trailing_garbage_and_non_ascii_digits_are_no_version(requested: str) -> None:
    """M3, M4 (#35): one PEP 440 parser, ASCII digits only, nothing after the version."""
    with pytest.raises(ValueError, match="is not a vLLM release number"):
        versions.choose("vllm", requested, "CGCONFIG_ENGINE_VERSION")


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
