"""The start-up path's field types agree with the pydantic models they are generated from."""

from __future__ import annotations

import pytest

from cgconfig.fields.generate import GENERATED, build_specs, render_module
from cgconfig.fields.spec import FieldError, check
from cgconfig.fields.table import spec


def test_generated_specs_are_current() -> None:
    assert GENERATED.read_text() == render_module(build_specs()), (
        "regenerate: python -m cgconfig.fields.generate")


@pytest.mark.parametrize(("key", "value"), [
    ("decode.max_bs", 64), ("decode.bs", [1, 2]), ("decode.backend", "breakable"),
    ("facts.gpu_memory_gib", 80), ("facts.gpu_memory_gib", 80.5), ("facts.enable_lora", True),
    ("facts.chunked_prefill_size", -1), ("options.torch_compile_max_bs", 16),
])
def test_values_the_models_accept_pass(key: str, value: object) -> None:
    assert check(spec(key), value) == value


@pytest.mark.parametrize(("key", "value"), [
    ("decode.max_bs", "64"), ("decode.max_bs", 0), ("decode.max_bs", True), ("decode.max_bs", 6.0),
    ("decode.bs", []), ("decode.bs", [1, -2]), ("decode.bs", "1 2"), ("decode.backend", "ful"),
    ("decode.backend", "piecewise"), ("facts.tp_size", 0), ("facts.device", "gpu"),
    ("facts.enable_lora", "yes"), ("facts.gpu_memory_gib", -1), ("facts.model_arch", 3),
])
def test_values_the_models_reject_fail_the_same_way(key: str, value: object) -> None:
    from pydantic import ValidationError

    from cgconfig.fields.config import PHASE_MODELS, GraphOptions
    from cgconfig.fields.deployment import DeploymentFacts

    group, name = key.split(".", 1)
    model = {"facts": DeploymentFacts, "options": GraphOptions}.get(group) or PHASE_MODELS[group]
    with pytest.raises(ValidationError) as by_model:
        model.model_validate({name: value})
    with pytest.raises(FieldError) as by_spec:
        check(spec(key), value)
    expected = by_model.value.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
    assert by_spec.value.message == expected
