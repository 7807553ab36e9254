"""``--max-model-len -1`` / ``auto``: from vLLM 0.14.1 its parser type is
``human_readable_int_or_auto`` (``vllm/utils/argparse_utils.py``), -1 meaning the longest length
that fits the GPU; 0.13.0's ``human_readable_int`` refuses ``auto``. Measured on the oracle at
0.20.1 and 0.33.0: ``vllm serve @llama --max-model-len auto`` plans as the line without it
(FULL_AND_PIECEWISE, sizes up to 512 on SM 90)."""

from __future__ import annotations

import pytest

from cgconfig.api import request_from_argv, resolve_request
from cgconfig.errors import InputError
from cgconfig.line.versions import EngineVersion

BASE = ["vllm", "serve", "meta-llama/Llama-3.1-8B", "--gpu-memory-gib", "80"]


def _plan(release: str, *more: str):
    return resolve_request(request_from_argv(
        [*BASE, *more], environ={}, engine_version=EngineVersion("vllm", release, "--engine-version")))


@pytest.mark.parametrize("release", ["0.14.1", "0.20.1", "0.33.0"])
@pytest.mark.parametrize("value", ["auto", "AUTO", "-1", " auto"])
def test_auto_fits_the_gpu_and_plans_as_without_it(release: str, value: str) -> None:
    plain = _plan(release)
    auto = _plan(release, "--max-model-len", value)
    for phase in ("decode", "prefill"):
        assert auto.capture_sizes(phase) == plain.capture_sizes(phase)
        assert auto.backend(phase) == plain.backend(phase)


def test_before_0_14_1_auto_is_no_integer() -> None:
    with pytest.raises(InputError, match="expected an integer"):
        _plan("0.13.0", "--max-model-len", "auto")


def test_a_length_is_still_read() -> None:
    with pytest.raises(InputError, match="positive integer"):
        _plan("0.33.0", "--max-model-len", "-2")
