"""The Python API under bad input: every failure the caller caused is an ``InputError``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import pytest

from cgconfig import CudaGraphConfig, resolve_args, resolve_dict
from cgconfig.api import add_arguments, request_from_argv, resolve_namespace
from cgconfig.errors import InputError


def _mutated(change: Callable[[CudaGraphConfig], None]) -> CudaGraphConfig:
    config = CudaGraphConfig()
    change(config)
    return config


def _set(obj: Any, name: str, value: Any) -> None:
    setattr(obj, name, value)


API_CASES: tuple[tuple[str, Callable[[], object]], ...] = (
    ("resolve_args-None", lambda: resolve_args(None)),  # type: ignore[arg-type]
    ("resolve_args-str", lambda: resolve_args("--tp-size 2")),  # type: ignore[arg-type]
    ("resolve_args-ints", lambda: resolve_args([1, 2])),  # type: ignore[list-item]
    ("resolve_args-nul", lambda: resolve_args(["--deployment", "a\0b.yaml"])),
    ("resolve_args-nul-config", lambda: resolve_args(["--cuda-graph-config", "@x\0.json"])),
    ("request_from_argv-None", lambda: request_from_argv(None)),  # type: ignore[arg-type]
    ("resolve_dict-facts-int-key", lambda: resolve_dict(None, facts={1: 2})),  # type: ignore[dict-item]
    ("resolve_dict-facts-list", lambda: resolve_dict(None, facts=[1])),  # type: ignore[arg-type]
    ("resolve_dict-config-list", lambda: resolve_dict([1])),  # type: ignore[arg-type]
    ("resolve_dict-config-int-key", lambda: resolve_dict({1: {}})),  # type: ignore[dict-item]
    ("resolve_dict-2^63", lambda: resolve_dict({"decode": {"max_bs": 2**63}})),
    ("resolve_dict-1e11-prefill", lambda: resolve_dict({"prefill": {"max_bs": 10**11}})),
    ("resolve_dict-bool-max-bs", lambda: resolve_dict({"decode": {"max_bs": True}})),
    ("resolve_dict-chunked-10^400", lambda: resolve_dict(
        None, facts={"chunked_prefill_size": 10**400})),
    ("resolve_dict-memory-inf", lambda: resolve_dict(None, facts={"gpu_memory_gib": float("inf")})),
    ("resolve_dict-memory-nan", lambda: resolve_dict(None, facts={"gpu_memory_gib": float("nan")})),
    ("resolve_dict-rule-files-str", lambda: resolve_dict(None, rule_files="p.yaml")),  # type: ignore[arg-type]
    ("capture_sizes-unknown-phase", lambda: resolve_args([]).capture_sizes("nope")),
    ("backend-unknown-phase", lambda: resolve_args([]).backend(3)),  # type: ignore[arg-type]
    ("mutated-max-bs-negative", lambda: resolve_dict(
        _mutated(lambda c: _set(c.decode, "max_bs", -4)))),
    ("mutated-backend-turbo", lambda: resolve_dict(
        _mutated(lambda c: _set(c.decode, "backend", "turbo")))),
    ("mutated-bs-strings", lambda: resolve_dict(
        _mutated(lambda c: _set(c.prefill, "bs", ["8"])))),
    ("mutated-max-bs-huge", lambda: resolve_dict(
        _mutated(lambda c: _set(c.decode, "max_bs", 10**11)))),
    ("namespace-facts-int-key", lambda: resolve_namespace(
        _namespace(), facts={1: 2})),  # type: ignore[dict-item]
)


def _namespace() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args([])


@pytest.mark.parametrize(("name", "call"), API_CASES, ids=[n for n, _ in API_CASES])
def test_bad_api_input_raises_input_error(name: str, call: Callable[[], object]) -> None:
    with pytest.raises(InputError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message and len(message) <= 1000, name


def test_a_mutated_valid_config_still_resolves_and_locks() -> None:
    config = CudaGraphConfig()
    config.decode.max_bs = 8
    plan = resolve_dict(config)
    assert plan.config["decode"]["max_bs"] == 8
    assert "decode.max_bs" in plan.locked
