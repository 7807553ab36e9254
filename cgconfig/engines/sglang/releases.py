"""What changed in SGLang's CUDA-graph resolution between the supported releases, as data.

Each entry is one behaviour, the first release it holds in, and the upstream function that
has it; a step asks :func:`holds` with the version the line is answered for
(``Draft.engine_version``). The releases themselves are named in
:data:`cgconfig.line.versions.SUPPORTED`; a release with no entry here behaves as the one
before it. Stdlib only.
"""

from __future__ import annotations

from typing import NamedTuple

from cgconfig.line.versions import newest, version_key


class ReleaseChange(NamedTuple):
    """One behaviour that begins in ``since``."""

    since: str
    where: str
    """The upstream file and function that has it (in ``since``)."""
    before: str
    """What the releases before ``since`` do instead."""


#: Behaviour → the release it begins in. Read by the sizing steps; see docs/fidelity.md.
CHANGES: dict[str, ReleaseChange] = {
    "memory-tier-20-35-doubled": ReleaseChange(
        "0.5.20", "arg_groups/memory_hook.py:handle_gpu_memory_settings",
        "20-35 GiB: chunked prefill 2048, decode max_bs 24 (tp < 4) / 80"),
    "qwen3-vl-running-limit": ReleaseChange(
        "0.5.20", "arg_groups/model_overrides/qwen3_vl.py:"
        "expand_multimodal_decode_graph_to_running_limit",
        "no expansion of Qwen3-VL's decode max_bs to the running limit"),
    "decode-max-bs-running-clamp": ReleaseChange(
        "0.5.22", "arg_groups/memory_hook.py:handle_gpu_memory_settings",
        "a defaulted decode max_bs is not clamped to --max-running-requests"),
    "mla-prefill-max-bs-from-chunked": ReleaseChange(
        "0.5.23", "arg_groups/memory_hook.py:handle_gpu_memory_settings",
        "MLA models' default prefill max_bs is 2048"),
}

#: The 20-35 GiB row before 0.5.20 (``memory_hook.handle_gpu_memory_settings``, SGLang 0.5.19):
#: chunked prefill, decode max_bs at tp < 4, decode max_bs at tp >= 4.
TIER_20_35_BEFORE_0_5_20 = (2048, 24, 80)
#: MLA models' default prefill max_bs before 0.5.23 (``memory_hook``, SGLang 0.5.22).
MLA_PREFILL_MAX_BS_BEFORE_0_5_23 = 2048


def holds(change: str, version: str | None) -> bool:
    """Whether ``change`` holds in SGLang ``version`` (``None``: the newest supported)."""
    key = version_key(version or newest("sglang"))
    since = version_key(CHANGES[change].since)
    assert key is not None and since is not None
    return key >= since
