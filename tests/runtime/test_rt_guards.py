"""Admission guards: which batches replay and why the others run eagerly."""

from __future__ import annotations

import pytest

from cgconfig.runtime.guards import Guards, Route

SIZES = (4, 8, 16, 32)


@pytest.mark.parametrize("guards, size, kwargs, expected", [
    (Guards(SIZES), 5, {}, Route(8, None)),
    (Guards(SIZES), 32, {}, Route(32, None)),
    (Guards(SIZES), 33, {}, Route(None, "over_max_size")),
    (Guards(SIZES), 0, {}, Route(None, "empty_batch")),
    (Guards(SIZES, disable_padding=True), 5, {}, Route(None, "no_exact_size")),
    (Guards(SIZES, disable_padding=True), 8, {}, Route(8, None)),
    # 2x factor (SGLang's prefill cap): 9 -> 16 is allowed, 7 -> 8 too, 3 -> 4 too ...
    (Guards(SIZES, max_padding_factor=2.0), 9, {}, Route(16, None)),
    # ... but 1 -> 4 pads 4x.
    (Guards(SIZES, max_padding_factor=2.0), 1, {}, Route(None, "padding_over_factor")),
    (Guards(SIZES, max_padding_factor=2.0), 2, {}, Route(4, None)),
    (Guards(SIZES, max_requests=4), 8, {"num_requests": 5}, Route(None, "over_max_requests")),
    (Guards(SIZES, max_requests=4), 8, {"num_requests": 4}, Route(8, None)),
    (Guards(SIZES, unsupported=frozenset({"lora"})), 8, {"features": ["lora"]},
     Route(None, "unsupported:lora")),
    (Guards(SIZES, unsupported=frozenset({"lora"})), 8, {"features": ["logprobs"]},
     Route(8, None)),
    (Guards(SIZES, disabled=True), 8, {}, Route(None, "backend_disabled")),
    (Guards(()), 1, {}, Route(None, "over_max_size")),
])
def test_route(guards: Guards, size: int, kwargs: dict[str, object], expected: Route) -> None:
    assert guards.route(size, **kwargs) == expected  # type: ignore[arg-type]
