"""The Python API for launch scripts: resolve_args, resolve_dict, add_arguments +
resolve_namespace, and the plan's JSON form."""

from __future__ import annotations

import argparse
import json

import pytest

import cgconfig
from cgconfig import (
    CudaGraphConfig,
    DecodeConfig,
    InputError,
    PrefillConfig,
    add_arguments,
    resolve_args,
    resolve_dict,
    resolve_namespace,
)
from cgconfig.plan import Plan


def comparable(plan: Plan) -> tuple:
    return plan.config, plan.capture, plan.locked, plan.options


# --- resolve_args -------------------------------------------------------------------------


def test_resolve_args_returns_a_plan() -> None:
    plan = resolve_args(["--tp-size", "8", "--cuda-graph-max-bs-decode", "128"])
    assert isinstance(plan, Plan)
    assert plan.backend("decode") == "full"
    assert plan.config["decode"]["max_bs"] == 128
    assert plan.capture_sizes("decode")[-1] == 128
    assert plan.facts["tp_size"] == 8


def test_resolve_args_with_no_input_uses_defaults() -> None:
    plan = resolve_args([])
    assert plan.locked == []
    assert plan.backend("prefill") == "breakable"


def test_resolve_args_raises_input_error_on_bad_input() -> None:
    with pytest.raises(InputError) as info:
        resolve_args(["--cuda-graph-config", '{"decode":{"max_bs":"abc"}}'])
    assert info.value.exit_code == 2
    assert info.value.where == "--cuda-graph-config at /decode/max_bs"


def test_resolve_args_ignore_unknown_keyword() -> None:
    with pytest.raises(InputError):
        resolve_args(["--not-a-flag", "1"])
    plan = resolve_args(["--not-a-flag", "1"], ignore_unknown=True)
    assert "--not-a-flag" in plan.ignored_args


def test_lazy_exports_and_unknown_attribute() -> None:
    assert cgconfig.resolve_args is resolve_args
    with pytest.raises(AttributeError):
        _ = cgconfig.not_there  # type: ignore[attr-defined]


# --- resolve_dict -------------------------------------------------------------------------


def test_resolve_dict_from_dict_matches_argv_form() -> None:
    doc = {"decode": {"max_bs": 64}, "prefill": {"backend": "disabled"}}
    from_dict = resolve_dict(doc, {"tp_size": 4})
    from_argv = resolve_args(["--cuda-graph-config", json.dumps(doc), "--tp-size", "4"])
    assert comparable(from_dict) == comparable(from_argv)


def test_resolve_dict_from_object_matches_argv_form() -> None:
    config = CudaGraphConfig(decode=DecodeConfig(max_bs=64), prefill=PrefillConfig(max_seq_len=8))
    from_object = resolve_dict(config, {"tp_size": 4})
    from_argv = resolve_args(["--cuda-graph-max-bs-decode", "64",
                              "--cuda-graph-max-seq-len-prefill", "8", "--tp-size", "4"])
    assert comparable(from_object) == comparable(from_argv)


def test_resolve_dict_none_is_the_default_plan() -> None:
    assert comparable(resolve_dict()) == comparable(resolve_args([]))


def test_resolve_dict_facts_reach_the_plan() -> None:
    plan = resolve_dict({}, {"gpu_memory_gib": 80.0, "tp_size": 8})
    assert plan.config["decode"]["max_bs"] == 512
    assert plan.fact_sources["tp_size"] == "facts['tp_size']"


def test_resolve_dict_rejects_bad_values_and_facts() -> None:
    with pytest.raises(InputError, match="unknown key 'max_b'"):
        resolve_dict({"decode": {"max_b": 3}})
    with pytest.raises(InputError, match="tp_sise"):
        resolve_dict({}, {"tp_sise": 2})
    with pytest.raises(InputError, match="facts\\['tp_size'\\]"):
        resolve_dict({}, {"tp_size": "8"})


def test_config_object_rejects_bad_values_at_construction() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        DecodeConfig(max_bs="abc")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        DecodeConfig(bs=[])
    with pytest.raises(ValidationError, match=r"piecewise \(tc_piecewise\) was removed"):
        PrefillConfig(backend="piecewise")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        CudaGraphConfig.from_dict({"decode": {"tc_compiler": "eager"}})


# --- add_arguments + resolve_namespace ----------------------------------------------------


def _launcher_parser(facts: bool = False) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="launch")
    parser.add_argument("--model-path", required=True)
    parser.add_argument("--port", type=int, default=30000)
    parser.add_argument("--verbose", action="store_true")
    add_arguments(parser, facts=facts)
    return parser


ARGV_CASES = [
    ["--cuda-graph-max-bs-decode", "64"],
    ["--cuda-graph-backend-prefill", "disabled", "--cuda-graph-bs-decode", "1", "2", "4"],
    ["--disable-cuda-graph", "--cuda-graph-backend-decode", "breakable"],
    ["--cuda-graph-config", '{"decode":{"max_bs":32}}', "--enable-torch-compile",
     "--torch-compile-max-bs", "16"],
    ["--cuda-graph-prefill-max-context", "200k", "--disable-cuda-graph-padding"],
]


@pytest.mark.parametrize("argv", ARGV_CASES)
def test_namespace_gives_the_same_plan_as_argv(argv: list[str]) -> None:
    parser = _launcher_parser()
    namespace = parser.parse_args(["--model-path", "m", "--port", "1234", "--verbose", *argv])
    assert namespace.model_path == "m" and namespace.port == 1234 and namespace.verbose
    plan = resolve_namespace(namespace, facts={"tp_size": 8})
    reference = resolve_args([*argv, "--tp-size", "8"])
    assert comparable(plan) == comparable(reference)


def test_namespace_with_fact_flags() -> None:
    parser = _launcher_parser(facts=True)
    argv = ["--tp-size", "4", "--disaggregation-mode", "prefill", "--gpu-memory-gib", "80"]
    namespace = parser.parse_args(["--model-path", "m", *argv])
    assert comparable(resolve_namespace(namespace)) == comparable(resolve_args(argv))


def test_namespace_fact_alias_flag() -> None:
    parser = _launcher_parser(facts=True)
    namespace = parser.parse_args(["--model-path", "m", "--tp", "4"])
    assert resolve_namespace(namespace).facts["tp_size"] == 4


def test_add_arguments_keeps_launcher_flags_and_uses_prefixed_dests() -> None:
    parser = _launcher_parser()
    namespace = parser.parse_args(["--model-path", "m"])
    cg = {k for k in vars(namespace) if k.startswith("cgconfig_")}
    assert "cgconfig_cuda_graph_max_bs_decode" in cg
    assert {"model_path", "port", "verbose"} <= set(vars(namespace))
    plan = resolve_namespace(namespace)
    assert comparable(plan) == comparable(resolve_args([]))


def test_add_arguments_conflicts_with_an_existing_same_flag() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda-graph-max-bs-decode", type=int)
    with pytest.raises(argparse.ArgumentError):
        add_arguments(parser)


def test_namespace_deprecations_and_errors_match_the_command_line() -> None:
    parser = _launcher_parser()
    namespace = parser.parse_args(["--model-path", "m", "--cuda-graph-max-bs", "8"])
    plan = resolve_namespace(namespace)
    # The alias is SGLang 0.5.19's (0.5.20 removed it): the line names that release.
    assert plan.deprecations == resolve_args(["--engine-version", "sglang==0.5.19",
                                              "--cuda-graph-max-bs", "8"]).deprecations
    namespace = parser.parse_args(["--model-path", "m", "--cuda-graph-max-bs-decode", "0"])
    with pytest.raises(InputError, match="--cuda-graph-max-bs-decode"):
        resolve_namespace(namespace)


def test_namespace_strict_flag_is_passed_through() -> None:
    parser = _launcher_parser()
    namespace = parser.parse_args(["--model-path", "m"])
    plan = resolve_namespace(namespace, strict=True)
    assert comparable(plan) == comparable(resolve_args([]))


# --- Plan.to_json -------------------------------------------------------------------------


def test_plan_to_json_round_trips_through_json() -> None:
    plan = resolve_args(["--disaggregation-mode", "prefill", "--cuda-graph-max-bs-decode", "64",
                         "--enable-torch-compile", "--max-running-requests", "100"])
    text = plan.to_json()
    data = json.loads(text)
    assert data == plan.to_dict()
    assert json.dumps(data, indent=2, ensure_ascii=False) == text
    assert data["config"] == plan.config
    assert data["capture"] == plan.capture
    assert data["locked"] == plan.locked


def test_plan_to_json_is_deterministic() -> None:
    argv = ["--tp-size", "8", "--enable-dp-attention", "--dp-size", "2"]
    assert resolve_args(argv).to_json() == resolve_args(argv).to_json()
    assert resolve_args(argv).to_json(indent=None) == resolve_args(argv).to_json(indent=None)


def test_plan_downgraded_property() -> None:
    assert resolve_args(["--disaggregation-mode", "prefill"]).downgraded
    assert not resolve_args([]).downgraded


def test_sglang_multi_value_fact_flags_take_every_value() -> None:
    # SGLang 0.5.23 declares --lora-paths / --lora-target-modules nargs="+".
    plan = resolve_args(["--enable-lora", "--lora-paths", "a=/x", "b=/y",
                         "--lora-target-modules", "q_proj", "k_proj", "--tp-size", "2"])
    assert plan.facts["lora_paths"] == "a=/x b=/y"
    assert plan.facts["lora_target_modules"] == "q_proj k_proj"
    assert plan.facts["tp_size"] == 2
