"""vLLM's size steps (vllm.sizes, vllm.B7) follow the one lock policy: a capture-size list the
user wrote is locked, so vLLM changing it is a warning, and under ``--strict`` an error."""

from __future__ import annotations

import pytest

from cgconfig import resolve_args
from cgconfig.errors import StrictConflictError

ROUNDED = ["--cudagraph-capture-sizes", "1", "2", "4", "--num-speculative-tokens", "3"]
DROPPED = ["-cc", '{"cudagraph_capture_sizes": [1, 4096]}', "--max-num-batched-tokens", "2048"]


def test_b7_rounding_a_user_list_overrides_the_lock_with_a_warning() -> None:
    plan = resolve_args(ROUNDED)
    b7 = next(d for d in plan.decisions if d.rule == "vllm.B7")
    assert b7.outcome == "overrode-lock"
    assert b7.inputs == ["--cudagraph-capture-sizes (capture sizes, in tokens)"]
    assert plan.config["decode"]["bs"] == [4]
    assert any(w.startswith("rule vllm.B7 overrode decode.bs, prefill.bs:")
               for w in plan.warnings)


def test_default_grid_rounding_is_not_a_lock_override() -> None:
    plan = resolve_args(["--num-speculative-tokens", "3"])
    b7 = next(d for d in plan.decisions if d.rule == "vllm.B7")
    assert b7.outcome == "applied" and not plan.warnings


@pytest.mark.parametrize(("argv", "rule", "remedy"), [
    (ROUNDED, "vllm.B7", "or choose sizes that are multiples of 4"),
    (DROPPED, "vllm.sizes", "or choose sizes up to max_num_batched_tokens"),
])
def test_strict_refuses_changing_a_user_list(argv: list[str], rule: str, remedy: str) -> None:
    with pytest.raises(StrictConflictError) as info:
        resolve_args([*argv, "--strict"])
    assert f"rule {rule} (constraint) would change decode.bs" in str(info.value)
    assert remedy in str(info.value)
