"""SGLang's deterministic-inference check of the attention backend, by release.

``--enable-deterministic-inference`` accepts a few attention backends, fewer for absorbed-MLA
(DeepSeek-style) models; both lists, the architectures that count as absorbed-MLA, and whether
SGLang's own deterministic fallback picks a backend before its default one, moved from release
to release. Each is a tuple of :class:`~cgconfig.engines.release_change.ReleaseChange` rows,
read from each release's ``server_args.py`` (``DETERMINISTIC_ATTENTION_BACKEND_CHOICES``,
``RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND``, ``ServerArgs._handle_deterministic_inference``;
from 0.5.19 ``arg_groups/attention_hook.py:handle_deterministic_inference``). The rule
``refuse.deterministic-attention-backend`` reads :func:`backend_supported` through the derived
value ``sglang_deterministic_backend_refused``. Standard library only.
"""

from __future__ import annotations

from typing import cast

from cgconfig.engines.release_change import ReleaseChange, holds_in, value_at

_OLD = "python/sglang/srt/server_args.py:ServerArgs._handle_deterministic_inference"
_HOOK = "python/sglang/srt/arg_groups/attention_hook.py:handle_deterministic_inference"
_SIX = ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
        "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM")

#: The architectures the check treats as DeepSeek-style (absorbed MLA).
ABSORBED_MLA_ARCHS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.18", "six DeepSeek-style architectures", _OLD, _SIX),
    ReleaseChange("0.5.18", "0.5.20", "adds Glm4MoeLiteForCausalLM", _OLD,
                  (*_SIX, "Glm4MoeLiteForCausalLM")),
    ReleaseChange("0.5.20", None, "adds Glm5NextForConditionalGeneration", _HOOK,
                  (*_SIX, "Glm4MoeLiteForCausalLM", "Glm5NextForConditionalGeneration")),
)

#: ``DETERMINISTIC_ATTENTION_BACKEND_CHOICES``: the backends deterministic inference runs on.
BACKENDS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.13", "flashinfer, fa3, triton", _OLD, ("fa3", "flashinfer", "triton")),
    ReleaseChange("0.5.13", "0.5.16", "adds ascend", _OLD, ("ascend", "fa3", "flashinfer", "triton")),
    ReleaseChange("0.5.16", "0.5.19", "adds fa4", _OLD,
                  ("ascend", "fa3", "fa4", "flashinfer", "triton")),
    ReleaseChange("0.5.19", None, "adds intel_xpu", _HOOK,
                  ("ascend", "fa3", "fa4", "flashinfer", "intel_xpu", "triton")),
)

#: The backends an absorbed-MLA model may use (fa4 only on SM100/SM103/SM110).
MLA_BACKENDS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.17", "fa3 and triton (a list written in the check)", _OLD,
                  ("fa3", "triton")),
    ReleaseChange("0.5.17", None, "RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND: ascend, "
                  "fa3, fa4 (SM100/SM110 only), triton", _OLD, ("ascend", "fa3", "fa4", "triton")),
)

#: The deterministic fallback (fa3; on Blackwell flashinfer, triton for absorbed-MLA models)
#: picks a backend for a line that names none before SGLang's default backend is picked.
#: Before, ``_handle_attention_backend_compatibility`` ran first, so the default backend was
#: already set and the check judged it.
FALLBACK_BEFORE_DEFAULT: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.12", None, "the deterministic fallback runs before the default "
                  "attention backend is picked (before: after it, so it never applied)",
                  "python/sglang/srt/server_args.py:ServerArgs.__post_init__ (the order of "
                  "_handle_deterministic_inference and _handle_attention_backend_compatibility)"),
)

_FA4_MLA_SMS = (100, 103, 110)


def absorbed_mla(arch: str | None, release: str) -> bool:
    """Whether the check treats ``arch`` as a DeepSeek-style model at ``release``."""
    return arch in cast("tuple[str, ...]", value_at(ABSORBED_MLA_ARCHS, release, default=()))


def fallback_first(release: str) -> bool:
    """Whether ``release`` picks the deterministic fallback before the default backend."""
    return holds_in(FALLBACK_BEFORE_DEFAULT, release)


def allowed(arch: str | None, release: str) -> tuple[str, ...]:
    """The backends deterministic inference accepts for ``arch`` at ``release``."""
    rows = MLA_BACKENDS if absorbed_mla(arch, release) else BACKENDS
    return cast("tuple[str, ...]", value_at(rows, release, default=()))


def backend_supported(backend: str, arch: str | None, gpu_sm: int | None, release: str) -> bool:
    """Whether ``release`` runs deterministic inference on ``backend`` for ``arch``: an
    absorbed-MLA model's fa4 needs a known SM100/SM103/SM110."""
    if backend not in allowed(arch, release):
        return False
    return not (backend == "fa4" and absorbed_mla(arch, release) and gpu_sm not in _FA4_MLA_SMS)
