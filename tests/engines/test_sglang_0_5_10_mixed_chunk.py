"""SGLang 0.5.8-0.5.10's ``check_server_args`` refuses ``--enable-mixed-chunk`` with pipeline
parallelism ('Pipeline parallelism is not compatible with overlap schedule, speculative
decoding, mixed chunked prefill.'); 0.5.11 drops the check (rule
``refuse.pp-mixed-chunk-before-0.5.11``). Each line was asked of the oracle on 0.5.8, 0.5.10,
0.5.11 and 0.5.12 (``--gpu-memory-gib 80 --sm 90 --model-arch llama`` and the flags below;
docs/fidelity.md, "SGLang 0.5.10")."""

from __future__ import annotations

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError

_PP_MIXED = ["--pp-size", "2", "--enable-mixed-chunk"]


@pytest.mark.parametrize("version", ["0.5.8", "0.5.10"])
@pytest.mark.parametrize("extra", [[], ["--disable-cuda-graph"]])
def test_0_5_10_refuses_mixed_chunk_with_pipeline_parallelism(version: str,
                                                               extra: list[str]) -> None:
    with pytest.raises(CgConfigError, match="refuses --enable-mixed-chunk with pipeline"):
        resolve_args(["--engine-version", version, "--gpu-memory-gib", "80", "--gpu-sm", "90",
                      *_PP_MIXED, *extra])


@pytest.mark.parametrize(("version", "extra", "decode"), [
    # the dual-chunk backend turns mixed chunking off before the check
    ("0.5.10", ["--attention-backend", "dual_chunk_flash_attn"], "full"),
    ("0.5.8", ["--attention-backend", "dual_chunk_flash_attn"], "full"),
    ("0.5.11", [], "full"), ("0.5.12", [], "full"),
    ("0.5.11", ["--disable-cuda-graph"], "disabled")])
def test_mixed_chunk_with_pipeline_parallelism_starts_otherwise(version: str, extra: list[str],
                                                                 decode: str) -> None:
    plan = resolve_args(["--engine-version", version, "--gpu-memory-gib", "80", "--gpu-sm", "90",
                         *_PP_MIXED, *extra])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        (decode, "disabled")


def test_mixed_chunk_alone_keeps_0_5_10s_graphs() -> None:
    plan = resolve_args(["--engine-version", "0.5.10", "--gpu-memory-gib", "80", "--gpu-sm", "90",
                         "--enable-mixed-chunk"])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        ("full", "tc_piecewise")
