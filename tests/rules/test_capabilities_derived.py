"""The attention-backend levels have one home (#31 item 5): ``engines/sglang/rules/capabilities.yaml``
takes each SGLang backend's level from its vLLM backend in ``vllm/modes.VLLM_BACKEND_SUPPORT``,
unless ``engines/sglang/attention_kernels.DELIBERATE`` lists another with its reason."""

from __future__ import annotations

from cgconfig.engines.sglang.attention_kernels import DELIBERATE, VLLM_KERNELS
from cgconfig.engines.vllm.modes import VLLM_BACKEND_SUPPORT
from cgconfig.rules.cache import capability_files
from cgconfig.rules.loader import load_capabilities


def test_each_sglang_level_is_its_vllm_backends_or_a_listed_difference() -> None:
    table = load_capabilities(capability_files()["sglang"]).backends
    assert set(VLLM_KERNELS) <= set(table), set(VLLM_KERNELS) - set(table)
    wrong = []
    for name, vllm in VLLM_KERNELS.items():
        want = DELIBERATE[name][0] if name in DELIBERATE else VLLM_BACKEND_SUPPORT[vllm].level.name
        if table[name].level != want:
            wrong.append(f"{name}: capabilities.yaml {table[name].level}, {vllm} gives {want}")
    assert not wrong, wrong


def test_a_deliberate_difference_differs_and_says_why() -> None:
    for name, (level, why) in DELIBERATE.items():
        assert level != VLLM_BACKEND_SUPPORT[VLLM_KERNELS[name]].level.name, name
        assert len(why) > 20, name


def test_unmapped_backends_are_sglangs_own() -> None:
    """A backend with no vLLM counterpart cites SGLang, or a builder VLLM_BACKEND_SUPPORT does
    not list (XPU's)."""
    table = load_capabilities(capability_files()["sglang"]).backends
    for name in set(table) - set(VLLM_KERNELS):
        assert "SGLang" in table[name].source or "XPU" in table[name].source, name
