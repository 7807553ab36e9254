"""Lock semantics: policies skip locked keys, constraints override them (or fail under
--strict), --allow-override and --disable-rule."""

from __future__ import annotations

import re

import pytest

from cgconfig import resolve_args
from cgconfig.errors import EXIT_STRICT, InputError, StrictConflictError
from cgconfig.plan import Decision, Plan


def _decision(plan: Plan, rule_id: str) -> Decision:
    return next(d for d in plan.decisions if d.rule == rule_id)


def test_policy_applies_to_an_unlocked_key() -> None:
    plan = resolve_args(["--pp-size", "2"])
    decision = _decision(plan, "breakable.pipeline-parallel")
    assert decision.outcome == "applied"
    assert [(c.key, c.before, c.after) for c in decision.changes] == [
        ("prefill.backend", "breakable", "disabled")]
    assert plan.config["prefill"]["backend"] == "disabled"


def test_policy_skips_a_locked_key_and_records_it() -> None:
    plan = resolve_args(["--pp-size", "2", "--cuda-graph-backend-prefill", "breakable"])
    decision = _decision(plan, "breakable.pipeline-parallel")
    assert decision.outcome == "skipped-locked"
    assert decision.inputs == ["--cuda-graph-backend-prefill"]
    assert plan.config["prefill"]["backend"] == "breakable"
    chain = plan.provenance["prefill.backend"]
    assert chain[-1].layer == "rule-skipped"
    assert not any("breakable.pipeline-parallel" in w for w in plan.warnings)


def test_policy_skip_holds_even_when_the_locked_value_equals_the_default() -> None:
    plan = resolve_args(["--enable-memory-saver", "--disaggregation-mode", "prefill",
                         "--cuda-graph-backend-decode", "full"])
    assert plan.config["decode"]["backend"] == "full"
    assert _decision(plan, "role.prefill-instance-no-decode").outcome == "skipped-locked"


def test_constraint_overrides_a_locked_key_with_a_warning_naming_the_flag() -> None:
    plan = resolve_args(["--attention-backend", "torch_native",
                         "--cuda-graph-backend-decode", "full"])
    decision = _decision(plan, "attention.torch-native-eager")
    assert decision.outcome == "overrode-lock"
    assert decision.inputs == ["--cuda-graph-backend-decode"]
    assert plan.config["decode"]["backend"] == "disabled"
    warning = next(w for w in plan.warnings if "attention.torch-native-eager" in w)
    assert warning.startswith("rule attention.torch-native-eager overrode decode.backend set by "
                              "--cuda-graph-backend-decode: the torch_native attention backend")


def test_constraint_names_a_json_pointer_when_the_config_document_set_the_key() -> None:
    plan = resolve_args(["--moe-a2a-backend", "deepep", "--deepep-mode", "normal",
                         "--cuda-graph-config", '{"decode": {"backend": "full"}}'])
    warning = next(w for w in plan.warnings if "feature.deepep-normal-mode" in w)
    assert "--cuda-graph-config" in warning
    assert plan.config["decode"]["backend"] == "disabled"


DEEPEP_NORMAL = ["--moe-a2a-backend", "deepep", "--deepep-mode", "normal"]


def test_strict_turns_an_override_into_an_error_listing_remedies() -> None:
    with pytest.raises(StrictConflictError) as info:
        resolve_args([*DEEPEP_NORMAL, "--cuda-graph-backend-decode", "full", "--strict"])
    error = info.value
    assert error.exit_code == EXIT_STRICT == 3
    assert len(error.conflicts) == 1
    message = error.conflicts[0]
    assert message.startswith("rule feature.deepep-normal-mode (constraint) would change "
                              "decode.backend from 'full' to 'disabled', which "
                              "--cuda-graph-backend-decode set explicitly: DeepEP in normal mode")
    assert message.endswith(
        "Remedies: drop --cuda-graph-backend-decode; or set decode.backend to 'disabled'; "
        "or pass --allow-override feature.deepep-normal-mode")


def test_strict_lists_every_conflicting_constraint() -> None:
    with pytest.raises(StrictConflictError) as info:
        resolve_args(["--attention-backend", "torch_native", "--cuda-graph-backend-decode",
                      "full", "--strict", "--apply-advice", "attention.decode-capability-never"])
    rules = [c.split(" ", 2)[1] for c in info.value.conflicts]
    assert rules == ["attention.torch-native-eager", "attention.decode-capability-never"]


def test_strict_lets_unlocked_constraints_and_policies_through() -> None:
    plan = resolve_args(["--attention-backend", "torch_native", "--strict"])
    assert plan.config["decode"]["backend"] == "disabled"
    plan = resolve_args(["--pp-size", "2", "--cuda-graph-backend-prefill", "breakable",
                         "--strict"])
    assert plan.config["prefill"]["backend"] == "breakable"


def test_allow_override_under_strict() -> None:
    plan = resolve_args([*DEEPEP_NORMAL, "--cuda-graph-backend-decode", "full", "--strict",
                         "--allow-override", "feature.deepep-normal-mode"])
    assert plan.config["decode"]["backend"] == "disabled"
    assert _decision(plan, "feature.deepep-normal-mode").outcome == "overrode-lock"
    assert any(w.startswith("rule feature.deepep-normal-mode overrode decode.backend")
               for w in plan.warnings)


def test_allow_override_of_another_rule_does_not_help() -> None:
    with pytest.raises(StrictConflictError):
        resolve_args([*DEEPEP_NORMAL, "--cuda-graph-backend-decode", "full", "--strict",
                      "--allow-override", "feature.tensor-dump"])


def test_disable_rule_switches_a_policy_off() -> None:
    plan = resolve_args(["--pp-size", "2", "--disable-rule", "breakable.pipeline-parallel"])
    assert plan.config["prefill"]["backend"] == "breakable"
    assert not any(d.rule == "breakable.pipeline-parallel" for d in plan.decisions)


def test_disable_rule_refuses_a_constraint() -> None:
    with pytest.raises(InputError, match="is a constraint") as info:
        resolve_args(["--attention-backend", "torch_native",
                      "--disable-rule", "attention.torch-native-eager"])
    assert info.value.exit_code == 2
    assert "--allow-override attention.torch-native-eager" in str(info.value)


def test_disable_rule_of_a_constraint_with_allow_override_when_not_strict() -> None:
    plan = resolve_args(["--attention-backend", "torch_native",
                         "--disable-rule", "attention.torch-native-eager",
                         "--allow-override", "attention.torch-native-eager",
                         "--apply-advice", "attention.decode-capability-never"])
    assert not any(d.rule == "attention.torch-native-eager" for d in plan.decisions)
    # The capability rule still sees a NEVER backend and keeps decode off full graphs.
    assert plan.config["decode"]["backend"] == "breakable"


def test_disable_rule_of_a_constraint_stays_refused_under_strict() -> None:
    with pytest.raises(InputError, match="is a constraint"):
        resolve_args(["--attention-backend", "torch_native", "--strict",
                      "--disable-rule", "attention.torch-native-eager",
                      "--allow-override", "attention.torch-native-eager"])


def test_disable_rule_unknown_id_suggests_one() -> None:
    with pytest.raises(InputError, match=re.escape("did you mean 'breakable.pipeline-parallel'")):
        resolve_args(["--disable-rule", "breakable.pipeline-paralel"])


def test_refusal_is_exit_2_and_names_the_rule() -> None:
    from cgconfig.errors import RuleRefusal

    with pytest.raises(RuleRefusal) as info:
        resolve_args(["--disable-cuda-graph-padding", "--enable-torch-compile"])
    assert info.value.exit_code == 2
    assert "[rule feature.padding-disabled-torch-compile]" in str(info.value)
    assert "remove --disable-cuda-graph-padding or --enable-torch-compile" in str(info.value)


def test_align_does_not_override_an_unchanged_locked_max_bs() -> None:
    plan = resolve_args(["--moe-a2a-backend", "deepep", "--cuda-graph-max-bs-prefill", "64",
                         "--strict"])
    assert plan.config["prefill"]["max_bs"] == 64
