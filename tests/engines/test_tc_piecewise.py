"""SGLang's tc_piecewise backend: planned for the releases that have it, refused after."""

from __future__ import annotations

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError


@pytest.mark.parametrize("release", ["0.5.19", "0.5.20", "0.5.21"])
def test_tc_piecewise_is_planned_by_the_releases_that_have_it(release: str) -> None:
    plan = resolve_args(["--engine-version", f"sglang=={release}",
                         "--cuda-graph-backend-prefill", "tc_piecewise",
                         "--cuda-graph-backend-decode", "tc_piecewise",
                         "--cuda-graph-tc-compiler", "inductor"]).to_dict()
    assert plan["config"]["prefill"]["backend"] == "tc_piecewise"
    assert plan["config"]["decode"]["backend"] == "tc_piecewise"
    assert plan["capture"]["prefill"]["sizes"]  # the same size grid as breakable


def test_json_tc_compiler_key_is_read_up_to_0_5_21() -> None:
    doc = '{"prefill":{"backend":"tc_piecewise","tc_compiler":"eager"}}'
    plan = resolve_args(["--engine-version", "sglang==0.5.21", "--cuda-graph-config", doc])
    assert plan.to_dict()["config"]["prefill"]["backend"] == "tc_piecewise"
    with pytest.raises(CgConfigError, match="tc_compiler was removed together with tc_piecewise"):
        resolve_args(["--engine-version", "sglang==0.5.22", "--cuda-graph-config", doc])


def test_enforce_piecewise_alias_is_0_5_19s() -> None:
    plan = resolve_args(["--engine-version", "sglang==0.5.19", "--enforce-piecewise-cuda-graph"])
    assert plan.to_dict()["config"]["prefill"]["backend"] == "tc_piecewise"
    with pytest.raises(CgConfigError, match=r"was removed in SGLang 0\.5\.20"):
        resolve_args(["--engine-version", "sglang==0.5.20", "--enforce-piecewise-cuda-graph"])


@pytest.mark.parametrize("release", ["0.5.22", "0.5.23"])
def test_tc_piecewise_is_refused_from_the_release_that_removed_it(release: str) -> None:
    with pytest.raises(CgConfigError, match=f"SGLang {release} refuses it: tc_piecewise was "
                                            "removed in SGLang 0.5.22"):
        resolve_args(["--engine-version", f"sglang=={release}",
                      "--cuda-graph-backend-prefill", "tc_piecewise"])


def test_runtime_says_it_cannot_build_tc_piecewise_in_one_line() -> None:
    from runtime.graphs import Backend, tc_piecewise_stand_in

    backend, said = tc_piecewise_stand_in("prefill")
    assert backend is Backend.EAGER and "\n" not in said
    assert "cannot build" in said
    assert tc_piecewise_stand_in("decode")[0] is Backend.FULL  # as SGLang's decode runner
