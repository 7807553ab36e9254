"""The config model's constants and field lookups, with no pydantic import.

``model.py`` (pydantic) builds its types from these constants; the start-up path reads field
types from the generated ``_fieldspecs.py``. Both stay in step through a test.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cgconfig.fieldspec import FieldSpec

PHASES: tuple[str, ...] = ("decode", "prefill")
BACKENDS: tuple[str, ...] = ("full", "breakable", "disabled")

#: Backends ordered from most to least capable. Rules may only move a backend down this order,
#: which is what makes repeated rule application terminate.
BACKEND_RANK: dict[str, int] = {"full": 2, "breakable": 1, "disabled": 0}

#: Names removed upstream, with what to use instead (SGLang 0.5.23 rejects them the same way).
REMOVED_BACKENDS: dict[str, str] = {
    "tc_piecewise": "tc_piecewise was removed; select breakable, full, or disabled",
    "piecewise": "piecewise (tc_piecewise) was removed; select breakable, full, or disabled",
}
REMOVED_KEYS: dict[str, str] = {
    "tc_compiler": "tc_compiler was removed together with tc_piecewise; drop the key",
}

#: Attention backends SGLang accepts (``--attention-backend`` choices). Kept as data so the
#: capability table in ``rules/`` and this list can be checked against each other in tests.
ATTENTION_BACKENDS: tuple[str, ...] = (
    "aiter", "ascend", "cutlass_mla", "dual_chunk_flash_attn", "fa3", "fa4", "flashinfer",
    "flashmla", "flex_attention", "hybrid_linear_attn", "intel_amx", "intel_xpu", "nsa",
    "torch_native", "triton", "trtllm_mha", "trtllm_mla", "wave",
)


@lru_cache(maxsize=1)
def specs() -> dict[str, FieldSpec]:
    """Every field spec by dotted key: ``decode.max_bs``, ``options.x``, ``facts.tp_size``."""
    from cgconfig._fieldspecs import SPECS

    return {spec.key: spec for spec in SPECS}


def spec(key: str) -> FieldSpec:
    """The spec of one dotted key."""
    return specs()[key]


@lru_cache(maxsize=1)
def keys_per_phase() -> dict[str, tuple[str, ...]]:
    """Phase → its keys, in model order."""
    return {p: tuple(k.split(".", 1)[1] for k in specs() if k.startswith(p + "."))
            for p in PHASES}


@lru_cache(maxsize=1)
def option_keys() -> tuple[str, ...]:
    """Graph option names, in model order."""
    return tuple(k.split(".", 1)[1] for k in specs() if k.startswith("options."))


@lru_cache(maxsize=1)
def fact_fields() -> tuple[str, ...]:
    """Deployment fact names, in model order."""
    return tuple(k.split(".", 1)[1] for k in specs() if k.startswith("facts."))


def all_config_keys() -> list[str]:
    """Every dotted key the resolver tracks: phase keys, then ``options.*``."""
    return [k for k in specs() if not k.startswith("facts.")]


def default_value(key: str) -> Any:
    """The model default of a dotted key (before platform or deployment defaults)."""
    value = spec(key).default
    return list(value) if isinstance(value, list) else value
