"""A deprecation warning is the answered release's own: SGLang 0.5.14-0.5.19 warn of the legacy
graph switches (their ``DeprecatedAction``), 0.5.13 takes them plainly (no
``--cuda-graph-backend-prefill`` to point to); from 0.5.20 SGLang refuses them."""

from __future__ import annotations

import pytest

from cgconfig.api import request_from_argv, resolve_request
from cgconfig.line.table import load_table
from cgconfig.line.versions import SUPPORTED, EngineVersion

LINE = ["python", "-m", "sglang.launch_server", "--model-path", "m",
        "--enable-breakable-cuda-graph", "--cuda-graph-max-bs", "16"]


def _deprecations(release: str) -> list[str]:
    # a release without --enable-breakable-cuda-graph (0.5.10) refuses it: the rest of the line
    table = load_table("sglang", release)
    line = [w for w in LINE if not w.startswith("--") or table.lookup(w) is not None]
    plan = resolve_request(request_from_argv(
        line, environ={}, engine_version=EngineVersion("sglang", release, "--engine-version")))
    return [d for d in plan.deprecations if "is deprecated" in d]


@pytest.mark.parametrize("release", ["0.5.13", "0.5.14", "0.5.19"])
def test_deprecations_follow_the_release_table(release: str) -> None:
    table = load_table("sglang", release)
    said = _deprecations(release)
    for spelling in ("--enable-breakable-cuda-graph", "--cuda-graph-max-bs"):
        flag = table.lookup(spelling)
        assert flag is not None, (release, spelling)
        expected = flag.deprecated
        assert any(f"'{spelling}'" in d for d in said) == expected, (release, spelling, said)


def test_the_oldest_release_warns_of_nothing() -> None:
    oldest = SUPPORTED["sglang"][0]
    assert load_table("sglang", oldest).lookup("--cuda-graph-max-bs") is not None
    assert not load_table("sglang", oldest).lookup("--cuda-graph-max-bs").deprecated  # type: ignore[union-attr]
    assert _deprecations(oldest) == []
