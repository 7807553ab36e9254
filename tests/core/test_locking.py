"""Explicit-key locking (README "Inputs and precedence"): every key a user input sets is
locked, nothing else is."""

from __future__ import annotations

import pytest

from cgconfig import resolve_args, resolve_dict
from cgconfig.api import request_from_argv
from cgconfig.api import resolve_request as resolve
from cgconfig.fields.config import CudaGraphConfig, DecodeConfig, PrefillConfig
from cgconfig.plan import Plan


def resolve_plain(argv: list[str]) -> Plan:
    request = request_from_argv(argv)
    request.use_rules = False
    return resolve(request)


@pytest.mark.parametrize(("argv", "key"), [
    (["--cuda-graph-backend-decode", "full"], "decode.backend"),
    (["--cuda-graph-backend-prefill", "breakable"], "prefill.backend"),
    (["--engine-version", "0.5.19", "--enable-breakable-cuda-graph"], "prefill.backend"),
    (["--cuda-graph-config", '{"decode":{"backend":"full"}}'], "decode.backend"),
    (["--cuda-graph-config", '{"prefill":{"backend":"breakable"}}'], "prefill.backend"),
])
def test_explicit_value_equal_to_default_still_locks(argv: list[str], key: str) -> None:
    baseline = resolve_plain([])
    plan = resolve_plain(argv)
    phase, name = key.split(".")
    assert plan.config[phase][name] == baseline.config[phase][name]
    assert plan.locked == [key]


def test_explicit_full_decode_backend_locks_end_to_end() -> None:
    plan = resolve_args(["--cuda-graph-backend-decode", "full"])
    assert "decode.backend" in plan.locked
    assert plan.config["decode"]["backend"] == "full"


def test_config_object_locks_only_the_field_the_caller_set() -> None:
    plan = resolve_dict(CudaGraphConfig(decode=DecodeConfig(max_bs=64)))
    assert plan.locked == ["decode.max_bs"]
    # Not SGLang's pitfall: the unset decode backend keeps its default instead of "disabled".
    assert plan.config["decode"]["backend"] == "full"
    assert plan.config["decode"]["max_bs"] == 64
    assert plan.config["prefill"]["backend"] == "breakable"


def test_config_object_locks_a_field_set_to_its_default_value() -> None:
    plan = resolve_dict(CudaGraphConfig(decode=DecodeConfig(backend="full")))
    assert plan.locked == ["decode.backend"]


def test_config_object_with_both_phases_locks_exactly_the_set_fields() -> None:
    config = CudaGraphConfig(decode=DecodeConfig(bs=[1, 2, 4]),
                             prefill=PrefillConfig(backend="disabled", max_seq_len=2048))
    plan = resolve_dict(config)
    assert set(plan.locked) == {"decode.bs", "prefill.backend", "prefill.max_seq_len"}


def test_default_constructed_config_object_locks_nothing() -> None:
    assert resolve_dict(CudaGraphConfig()).locked == []


def test_config_object_from_dict_locks_the_keys_of_the_dict() -> None:
    config = CudaGraphConfig.from_dict({"prefill": {"max_bs": 1024}})
    assert resolve_dict(config).locked == ["prefill.max_bs"]


def test_dict_input_locks_every_key_given() -> None:
    config = {"decode": {"backend": "full", "max_bs": 64},
              "prefill": {"backend": "breakable", "max_seq_len": 1024, "max_bs": 2048}}
    plan = resolve_dict(config)
    assert set(plan.locked) == {"decode.backend", "decode.max_bs", "prefill.backend",
                                "prefill.max_seq_len", "prefill.max_bs"}


def test_empty_dict_locks_nothing() -> None:
    assert resolve_dict({}).locked == []


def test_locked_list_is_in_model_key_order() -> None:
    plan = resolve_dict({"prefill": {"max_bs": 2048, "backend": "full"},
                         "decode": {"bs": [2, 4], "backend": "full"}})
    assert plan.locked == ["decode.backend", "decode.bs", "prefill.backend", "prefill.max_bs"]


def test_keys_the_resolver_fills_are_not_locked() -> None:
    # decode.bs sets decode.max_bs = max(bs); the size lists are generated; none is a user key.
    plan = resolve_plain(["--cuda-graph-bs-decode", "1", "2", "4"])
    assert plan.config["decode"]["max_bs"] == 4
    assert plan.config["prefill"]["bs"]  # generated from the chunked-prefill size
    assert plan.locked == ["decode.bs"]


def test_default_max_bs_clamp_does_not_lock() -> None:
    plan = resolve_plain(["--max-running-requests", "24"])
    assert plan.config["decode"]["max_bs"] == 24
    assert plan.locked == []


def test_deployment_facts_do_not_lock_config_keys() -> None:
    plan = resolve_plain(["--tp-size", "8", "--gpu-memory-gib", "80", "--chunked-prefill-size",
                          "2048", "--enable-dp-attention", "--dp-size", "2"])
    assert plan.locked == []


def test_keys_changed_by_rules_are_not_locked() -> None:
    plan = resolve_args(["--disaggregation-mode", "prefill"])
    assert plan.config["decode"]["backend"] == "disabled"  # the roles policy applied
    assert "decode.backend" not in plan.locked
    assert plan.locked == []


def test_locked_set_is_exactly_the_user_keys_when_rules_run() -> None:
    argv = ["--disaggregation-mode", "decode", "--cuda-graph-max-bs-decode", "32",
            "--cuda-graph-config", '{"prefill":{"max_seq_len":512}}']
    plan = resolve_args(argv)
    assert set(plan.locked) == {"decode.max_bs", "prefill.max_seq_len"}
    changed = {c.key for d in plan.decisions for c in d.changes}
    assert "prefill.backend" in changed
    assert not (changed - {"decode.max_bs", "prefill.max_seq_len"}) & set(plan.locked)


def test_policy_skips_a_locked_backend_and_records_it() -> None:
    plan = resolve_args(["--disaggregation-mode", "prefill", "--cuda-graph-backend-decode", "full"])
    assert plan.config["decode"]["backend"] == "full"
    skipped = [d for d in plan.decisions if d.outcome == "skipped-locked"]
    assert skipped and all(d.kind == "policy" for d in skipped)
    assert any(c.key == "decode.backend" for d in skipped for c in d.changes)
    assert "--cuda-graph-backend-decode" in skipped[0].inputs


def test_option_flags_lock_options_keys_only() -> None:
    plan = resolve_plain(["--torch-compile-max-bs", "16", "--enable-torch-compile"])
    assert set(plan.locked) == {"options.torch_compile_max_bs", "options.enable_torch_compile"}
