"""vLLM modes, capability levels and Stage B, checked against vLLM 0.33.0
(``vllm/config/compilation.py``: ``CUDAGraphMode``,
``CompilationConfig.resolve_cudagraph_mode_and_sizes``; ``vllm/v1/attention/backends/``: each
builder's ``cudagraph_support``). Expected values are written out by hand from that code, never
computed with the code under test."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cgconfig.engines.vllm import mode_resolution as vllm_mode_resolution
from cgconfig.engines.vllm.mode_resolution import (
    ModeResolution,
    VllmModeError,
    resolve_mode,
    round_sizes_for_spec,
)
from cgconfig.engines.vllm.modes import (
    MODE_PHASES,
    VLLM_BACKEND_SUPPORT,
    CudaGraphMode,
    SupportLevel,
    backend_support,
    min_support,
    mode_to_phases,
    parse_level,
    parse_mode,
    phases_to_mode,
)

N = CudaGraphMode.NONE
P = CudaGraphMode.PIECEWISE
F = CudaGraphMode.FULL
FDO = CudaGraphMode.FULL_DECODE_ONLY
FAP = CudaGraphMode.FULL_AND_PIECEWISE
NEVER = SupportLevel.NEVER
USTD = SupportLevel.UNIFORM_SINGLE_TOKEN_DECODE
UB = SupportLevel.UNIFORM_BATCH
ALWAYS = SupportLevel.ALWAYS
MODES = (N, P, F, FDO, FAP)
LEVELS = (NEVER, USTD, UB, ALWAYS)
SPECS = (0, 1, 3)

# ------------------------------------------------------------------------------------ enum

# member: decode_mode, mixed_mode, separate_routine, has_full, requires_piecewise, without_pw
ENUM_TABLE = {
    N: (N, N, False, False, False, N),
    P: (P, P, False, False, True, N),
    F: (F, F, False, True, False, F),
    FDO: (F, N, True, True, False, FDO),
    FAP: (F, P, True, True, True, FDO),
}


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_mode_helpers_match_vllm_enum(mode: CudaGraphMode) -> None:
    got = (mode.decode_mode(), mode.mixed_mode(), mode.separate_routine(),
           mode.has_full_cudagraphs(), mode.requires_piecewise(), mode.without_piecewise())
    assert got == ENUM_TABLE[mode]


def test_mode_values_are_vllms() -> None:
    assert [m.value for m in MODES] == [0, 1, 2, (2, 0), (2, 1)]
    assert str(FAP) == "FULL_AND_PIECEWISE"


@pytest.mark.parametrize("text, expected", [
    ("NONE", N), ("none", N), ("Piecewise", P), ("full", F), ("full_decode_only", FDO),
    ("FULL_AND_PIECEWISE", FAP), ("Full_And_Piecewise", FAP),
])
def test_parse_mode_is_case_insensitive(text: str, expected: CudaGraphMode) -> None:
    assert parse_mode(text) is expected


@pytest.mark.parametrize("text, suggestion", [
    ("full_decode", "FULL_DECODE_ONLY"), ("piecewize", "PIECEWISE"),
    ("full_and_piecewize", "FULL_AND_PIECEWISE"), ("ful", "FULL"),
])
def test_parse_mode_suggests_closest(text: str, suggestion: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_mode(text)
    message = str(info.value)
    assert f"Did you mean {suggestion}?" in message
    assert "NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE" in message


def test_parse_mode_unrelated_word_lists_allowed_without_guess() -> None:
    with pytest.raises(ValueError, match="Allowed: NONE, PIECEWISE") as info:
        parse_mode("banana")
    assert "Did you mean" not in str(info.value)


# ------------------------------------------------------------------------------ capability


def test_support_levels_are_ordered() -> None:
    assert NEVER < USTD < UB < ALWAYS
    assert [int(level) for level in LEVELS] == [0, 1, 2, 3]
    assert min(ALWAYS, USTD, UB) is USTD
    assert NEVER.vllm_str() == "AttentionCGSupport.NEVER"


@pytest.mark.parametrize("text, expected", [
    ("never", NEVER), ("UNIFORM_SINGLE_TOKEN_DECODE", USTD), ("uniform_batch", UB),
    ("Always", ALWAYS), ("AttentionCGSupport.UNIFORM_BATCH", UB),
    ("attentioncgsupport.never", NEVER),
])
def test_parse_level(text: str, expected: SupportLevel) -> None:
    assert parse_level(text) is expected


def test_parse_level_suggests() -> None:
    with pytest.raises(ValueError, match=r"Did you mean UNIFORM_BATCH\?.*Allowed: NEVER, "
                                         r"UNIFORM_SINGLE_TOKEN_DECODE, UNIFORM_BATCH, ALWAYS"):
        parse_level("uniform_batches")


BACKENDS_FROM_RESEARCH = {
    "FLASH_ATTN": ALWAYS, "FLASH_ATTN_FA2": UB, "FLASHINFER": USTD, "TRITON_ATTN": ALWAYS,
    "FLEX_ATTENTION": ALWAYS, "ROCM_ATTN": ALWAYS, "ROCM_AITER_FA": UB, "CPU_ATTN": NEVER,
    "FLASHMLA": UB, "FLASH_ATTN_MLA": UB, "TRITON_MLA": UB, "FLASHINFER_MLA": ALWAYS,
    "CUTLASS_MLA": USTD, "FLASHMLA_SPARSE": UB, "FLASHINFER_MLA_SPARSE": UB,
    "ROCM_AITER_MLA": UB, "HPC_ATTN": USTD,
}


@pytest.mark.parametrize("name", sorted(BACKENDS_FROM_RESEARCH))
def test_backend_table(name: str) -> None:
    entry = VLLM_BACKEND_SUPPORT[name]
    assert entry.level is BACKENDS_FROM_RESEARCH[name]
    assert entry.source.startswith("backends/") and ".py:" in entry.source


def test_every_backend_entry_is_documented() -> None:
    for name, entry in VLLM_BACKEND_SUPPORT.items():
        assert name == name.upper()
        assert ".py:" in entry.source
    assert "FlashAttention 2" in VLLM_BACKEND_SUPPORT["FLASH_ATTN"].note
    assert "conservative" in VLLM_BACKEND_SUPPORT["FLASHINFER"].note


def test_backend_support_lookup() -> None:
    assert backend_support("flashinfer") is USTD
    assert backend_support("HPC_ATTN") is USTD
    assert backend_support("HPC_ATTN", num_speculative_tokens=2) is UB
    assert backend_support("FLASHINFER", num_speculative_tokens=2) is USTD
    with pytest.raises(ValueError, match=r"Did you mean FLASHINFER\?"):
        backend_support("FLASH_INFER")


def test_min_support_takes_weakest() -> None:
    assert min_support(["FLASH_ATTN", "MAMBA2"]) == (UB, "MAMBA2")
    assert min_support(["FLASHINFER_MLA", "CUTLASS_MLA", "CPU_ATTN"]) == (NEVER, "CPU_ATTN")
    assert min_support(["TRITON_ATTN"]) == (ALWAYS, "TRITON_ATTN")
    with pytest.raises(ValueError):
        min_support([])


# --------------------------------------------------------------------------------- Stage B

# Hand-derived from the B1-B6 table. Per (mode, level): (result with q = 1, rules with q = 1,
# result with q > 1, rules with q > 1); a result "B2"/"B6" means vLLM raises in that rule.
Row = tuple[object, tuple[str, ...], object, tuple[str, ...]]


def _same(mode: CudaGraphMode) -> Row:
    return (mode, (), mode, ())


RAISE_B2: Row = ("B2", (), "B2", ())

# Defaults: VLLM_COMPILE, attention is a split point, piecewise capture available.
DEFAULT: dict[tuple[CudaGraphMode, SupportLevel], Row] = {
    **{(N, lv): _same(N) for lv in LEVELS},
    **{(P, lv): _same(P) for lv in LEVELS},
    (F, ALWAYS): _same(F),
    (F, UB): (FAP, ("B2",), FAP, ("B2",)),
    (F, USTD): (FAP, ("B2",), P, ("B2", "B4")),
    (F, NEVER): RAISE_B2,
    (FDO, ALWAYS): _same(FDO),
    (FDO, UB): _same(FDO),
    (FDO, USTD): (FDO, (), P, ("B4",)),
    (FDO, NEVER): (P, ("B3",), P, ("B3",)),
    (FAP, ALWAYS): _same(FAP),
    (FAP, UB): _same(FAP),
    (FAP, USTD): (FAP, (), P, ("B4",)),
    (FAP, NEVER): (P, ("B3",), P, ("B3",)),
}

# splitting_ops do not contain attention: B2 keeps only decode graphs, B3/B4 go to NONE.
NO_SPLIT = {
    **DEFAULT,
    (F, UB): (FDO, ("B2",), FDO, ("B2",)),
    (F, USTD): (FDO, ("B2",), N, ("B2", "B4")),
    (FDO, USTD): (FDO, (), N, ("B4",)),
    (FDO, NEVER): (N, ("B3",), N, ("B3",)),
    (FAP, USTD): (FAP, (), N, ("B4",)),
    (FAP, NEVER): (N, ("B3",), N, ("B3",)),
}

# Compilation mode is not VLLM_COMPILE: only B3 looks at it.
NOT_VLLM_COMPILE = {
    **DEFAULT,
    (FDO, NEVER): (N, ("B3",), N, ("B3",)),
    (FAP, NEVER): (N, ("B3",), N, ("B3",)),
}

# Inductor graph partition without the split: B3 still finds piecewise attention, B2/B4 do not.
INDUCTOR_PARTITION = {
    **NO_SPLIT,
    (FDO, NEVER): (P, ("B3",), P, ("B3",)),
    (FAP, NEVER): (P, ("B3",), P, ("B3",)),
}

# Model Runner V2 without compiled submodule or breakable graphs: B5 drops piecewise graphs.
NO_PIECEWISE_CAPTURE = {
    **DEFAULT,
    **{(P, lv): (N, ("B5",), N, ("B5",)) for lv in LEVELS},
    (F, UB): (FDO, ("B2", "B5"), FDO, ("B2", "B5")),
    (F, USTD): (FDO, ("B2", "B5"), N, ("B2", "B4", "B5")),
    (FDO, USTD): (FDO, (), N, ("B4", "B5")),
    (FDO, NEVER): (N, ("B3", "B5"), N, ("B3", "B5")),
    (FAP, ALWAYS): (FDO, ("B5",), FDO, ("B5",)),
    (FAP, UB): (FDO, ("B5",), FDO, ("B5",)),
    (FAP, USTD): (FDO, ("B5",), N, ("B4", "B5")),
    (FAP, NEVER): (N, ("B3", "B5"), N, ("B3", "B5")),
}

FLAG_SETS: dict[str, tuple[dict[str, Any], dict[tuple[CudaGraphMode, SupportLevel], Row]]] = {
    "default": ({}, DEFAULT),
    "no-split": ({"attention_split": False}, NO_SPLIT),
    "not-vllm-compile": ({"compilation_mode_is_vllm_compile": False}, NOT_VLLM_COMPILE),
    "inductor-partition": ({"attention_split": False, "inductor_graph_partition": True},
                           INDUCTOR_PARTITION),
    "no-piecewise-capture": ({"piecewise_capture_available": False}, NO_PIECEWISE_CAPTURE),
}

CASES = [
    pytest.param(flags, table, mode, level, spec, id=f"{name}-{mode}-{level.name}-spec{spec}")
    for name, (flags, table) in FLAG_SETS.items()
    for mode, level, spec in itertools.product(MODES, LEVELS, SPECS)
]


def test_tables_cover_every_combination() -> None:
    for _, table in FLAG_SETS.values():
        assert set(table) == set(itertools.product(MODES, LEVELS))


@pytest.mark.parametrize("flags, table, mode, level, spec", CASES)
def test_stage_b_table(flags: dict[str, Any], table: dict[tuple[CudaGraphMode, SupportLevel],
                       Row], mode: CudaGraphMode, level: SupportLevel, spec: int) -> None:
    q1_result, q1_rules, spec_result, spec_rules = table[(mode, level)]
    expected, rules = (q1_result, q1_rules) if spec == 0 else (spec_result, spec_rules)
    if isinstance(expected, str):
        with pytest.raises(VllmModeError) as info:
            resolve_mode(mode, level, num_speculative_tokens=spec, **flags)
        assert info.value.rule == expected
        assert info.value.steps == ()
        return
    result = resolve_mode(mode, level, num_speculative_tokens=spec, **flags)
    assert result.requested is mode
    assert result.mode is expected
    assert tuple(step.rule for step in result.steps) == rules
    # Steps chain: each starts where the previous ended, from the request to the result.
    chain = [mode] + [step.after for step in result.steps]
    assert [step.before for step in result.steps] == chain[:-1]
    assert chain[-1] is expected
    assert all(step.level == "warning" for step in result.steps)
    # B7 applies exactly when the final decode mode is FULL and q > 1 (V1 runner).
    assert result.size_multiple == (1 + spec if expected.decode_mode() is F and spec else 1)


def test_unset_mode_is_none_without_steps() -> None:
    result = resolve_mode(None, NEVER, num_speculative_tokens=3)
    assert (result.mode, result.steps, result.size_multiple) == (N, (), 1)


def test_negative_spec_tokens_rejected() -> None:
    with pytest.raises(ValueError):
        resolve_mode(F, ALWAYS, num_speculative_tokens=-1)


# Messages, verbatim. The B3 and B4 texts are copied from real vLLM log lines.

def test_message_b2_never_raises() -> None:
    with pytest.raises(VllmModeError) as info:
        resolve_mode(F, NEVER, backend_name="CpuAttentionBackend")
    assert str(info.value) == (
        "CUDAGraphMode.FULL is not supported with CpuAttentionBackend backend (support: "
        "AttentionCGSupport.NEVER); please try cudagraph_mode=PIECEWISE, and make sure "
        "compilation mode is VLLM_COMPILE")
    assert isinstance(info.value, ValueError)


def test_message_b2_to_full_and_piecewise() -> None:
    (step,) = resolve_mode(F, UB, backend_name="FlashMLABackend").steps
    assert step.message == (
        "CUDAGraphMode.FULL is not supported with FlashMLABackend backend (support: "
        "AttentionCGSupport.UNIFORM_BATCH); setting cudagraph_mode=FULL_AND_PIECEWISE")
    assert (step.before, step.after) == (F, FAP)


def test_message_b2_to_full_decode_only() -> None:
    (step,) = resolve_mode(F, USTD, backend_name="X", attention_split=False).steps
    assert step.message == (
        "CUDAGraphMode.FULL is not supported with X backend (support: "
        "AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting cudagraph_mode=FULL_DECODE_ONLY")


def test_message_b3_piecewise_matches_vllm_log() -> None:
    (step,) = resolve_mode(FAP, NEVER, backend_name="TritonMLABackend").steps
    assert step.message == (
        "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with TritonMLABackend backend "
        "(support: AttentionCGSupport.NEVER); setting cudagraph_mode=PIECEWISE because "
        "attention is compiled piecewise")


def test_message_b3_none() -> None:
    (step,) = resolve_mode(FDO, NEVER, backend_name="B",
                           compilation_mode_is_vllm_compile=False).steps
    assert step.message == (
        "CUDAGraphMode.FULL_DECODE_ONLY is not supported with B backend (support: "
        "AttentionCGSupport.NEVER); setting cudagraph_mode=NONE because attention is not "
        "compiled piecewise")


def test_message_b4_piecewise_matches_vllm_log() -> None:
    result = resolve_mode(FAP, USTD, num_speculative_tokens=3, backend_name="FlashInferBackend")
    assert result.messages == [
        "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention "
        "backend FlashInferBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); "
        "setting cudagraph_mode=PIECEWISE"]


def test_message_b4_after_b2_names_intermediate_mode() -> None:
    result = resolve_mode(F, USTD, num_speculative_tokens=1, backend_name="B",
                          attention_split=False)
    assert result.messages[1] == (
        "CUDAGraphMode.FULL_DECODE_ONLY is not supported with spec-decode for attention backend "
        "B (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting cudagraph_mode=NONE")


def test_message_b5() -> None:
    (step,) = resolve_mode(FAP, ALWAYS, piecewise_capture_available=False).steps
    assert step.message == (
        "Cudagraph mode FULL_AND_PIECEWISE requires piecewise capture, but the loaded model "
        "provides neither a compiled submodule nor breakable CUDA graphs. Overriding to "
        "FULL_DECODE_ONLY.")


def test_b6_is_unreachable_through_the_five_modes() -> None:
    for flags, _ in FLAG_SETS.values():
        for mode, level, spec in itertools.product(MODES, LEVELS, SPECS):
            try:
                resolve_mode(mode, level, num_speculative_tokens=spec, **flags)
            except VllmModeError as exc:
                assert exc.rule == "B2"


def test_b6_guard_message(monkeypatch: pytest.MonkeyPatch) -> None:
    # With B2/B3 taken out, full graphs on a NEVER backend reach vLLM's final guard.
    only_b6 = tuple(r for r in vllm_mode_resolution.STAGE_B_RULES if r[0] == "B6")
    monkeypatch.setattr(vllm_mode_resolution, "STAGE_B_RULES", only_b6)
    with pytest.raises(VllmModeError) as info:
        resolve_mode(FDO, NEVER, backend_name="B")
    assert info.value.rule == "B6"
    assert str(info.value) == (
        "CUDAGraphMode.FULL_DECODE_ONLY is not supported with B backend "
        "(support:AttentionCGSupport.NEVER) ; please try cudagraph_mode=PIECEWISE, and make "
        "sure compilation mode is VLLM_COMPILE")
    assert resolve_mode(P, NEVER).mode is P  # no full graphs: the guard stays quiet


def test_stage_b_rule_order() -> None:
    assert [rule for rule, _ in vllm_mode_resolution.STAGE_B_RULES] == ["B2", "B3", "B4", "B5", "B6"]


# ---------------------------------------------------------------------------------- B7


def test_v2_runner_does_not_round() -> None:
    assert resolve_mode(F, ALWAYS, num_speculative_tokens=3).size_multiple == 4
    assert resolve_mode(F, ALWAYS, num_speculative_tokens=3,
                        use_v2_model_runner=True).size_multiple == 1


def test_apply_sizes_rounds_for_full_decode() -> None:
    result = resolve_mode(FAP, UB, num_speculative_tokens=3)
    assert result.apply_sizes([1, 2, 4, 8, 16], 16) == ([4, 8, 16], 16)
    assert result.apply_sizes([1, 2, 4, 8, 16, 18], 18) == ([4, 8, 16], 16)
    assert result.apply_sizes([], 16) == ([], 16)


def test_apply_sizes_unchanged_without_full_decode() -> None:
    result = resolve_mode(FAP, USTD, num_speculative_tokens=3)  # B4 → PIECEWISE
    assert result.apply_sizes([1, 2, 3], 3) == ([1, 2, 3], 3)
    assert ModeResolution(F, F).apply_sizes([3, 1], 3) == ([3, 1], 3)


def test_apply_sizes_spec16_default_grid() -> None:
    # 16 speculative tokens, 32 seqs → the default grid (gaps ≤ 16 below 512) rounds to
    # every multiple of 17 up to 510; 527 and the widest decode batch 544 are above 512.
    grid = sorted({1, 2, 4, *range(8, 256, 8), *range(256, 513, 16), 17, 34, 68, 408})
    sizes, max_size = resolve_mode(F, ALWAYS, num_speculative_tokens=16).apply_sizes(grid, 512)
    assert sizes == [17 * k for k in range(1, 31)]
    assert max_size == 510


@pytest.mark.parametrize("sizes, max_size, q, expected", [
    ([1, 2, 3, 5], 8, 2, [2, 4, 6]),
    ([1, 2, 4, 8], 8, 4, [4, 8]),
    ([7], 8, 5, [5]),  # 10 > 8, but one request of 5 tokens fits
    ([5, 1, 5], 10, 5, [5]),
    ([1, 2, 3], 3, 1, [1, 2, 3]),  # q = 1: untouched
    ([3, 1], 3, 1, [3, 1]),
    ([], 8, 4, []),  # vLLM returns early on an empty list
])
def test_round_sizes_for_spec(sizes: list[int], max_size: int, q: int,
                              expected: list[int]) -> None:
    assert round_sizes_for_spec(sizes, max_size, q) == expected


def test_round_sizes_for_spec_error_message() -> None:
    with pytest.raises(VllmModeError) as info:
        round_sizes_for_spec([1, 2], 3, 4)
    assert str(info.value) == (
        "No valid cudagraph sizes after rounding to multiple of 4 (num_speculative_tokens + 1) "
        "please adjust num_speculative_tokens (3) or max_cudagraph_capture_size (3) or "
        "cudagraph_capture_sizes ([1, 2])")
    assert info.value.rule == "B7"


@given(sizes=st.lists(st.integers(1, 2000), min_size=1, max_size=40),
       max_size=st.integers(1, 2048), q=st.integers(2, 20))
def test_round_sizes_properties(sizes: list[int], max_size: int, q: int) -> None:
    try:
        out = round_sizes_for_spec(sizes, max_size, q)
    except VllmModeError:
        assert q > max_size
        return
    assert out, "a non-empty list never rounds to nothing without raising"
    assert all(s % q == 0 for s in out)
    assert all(s <= max_size for s in out)
    assert out == sorted(set(out))
    # Nothing that fits is lost: every size's round-up that stays ≤ max is present.
    for s in sizes:
        up = -(-s // q) * q
        if up <= max_size:
            assert up in out


# ------------------------------------------------------------------------ phase mapping


def test_mode_to_phases() -> None:
    assert {m: mode_to_phases(m) for m in MODES} == {
        N: ("disabled", "disabled"), P: ("breakable", "breakable"), F: ("full", "full"),
        FDO: ("full", "disabled"), FAP: ("full", "breakable")}
    assert set(MODE_PHASES) == set(MODES)


@given(st.sampled_from(list(CudaGraphMode)))
def test_phase_round_trip(mode: CudaGraphMode) -> None:
    assert phases_to_mode(*mode_to_phases(mode)) == (mode, [])


# (decode, prefill) → (mode, phases that could not be kept)
PHASE_TABLE = {
    ("full", "full"): (F, []),
    ("full", "breakable"): (FAP, []),
    ("full", "disabled"): (FDO, []),
    ("breakable", "breakable"): (P, []),
    ("disabled", "disabled"): (N, []),
    ("breakable", "full"): (P, ["prefill"]),
    ("breakable", "disabled"): (P, ["prefill"]),
    ("disabled", "breakable"): (P, ["decode"]),
    ("disabled", "full"): (P, ["decode", "prefill"]),
}


@pytest.mark.parametrize("decode, prefill", sorted(PHASE_TABLE))
def test_phases_to_mode_table(decode: str, prefill: str) -> None:
    mode, lost_phases = PHASE_TABLE[(decode, prefill)]
    got = phases_to_mode(decode, prefill)
    assert got.mode is mode
    assert [note.split("=", 1)[0] for note in got.unexpressed] == lost_phases
    for note in got.unexpressed:
        assert "cannot be expressed" in note and f"vLLM {mode.name} runs" in note


def test_phases_to_mode_never_adds_full() -> None:
    for decode, prefill in PHASE_TABLE:
        got = mode_to_phases(phases_to_mode(decode, prefill).mode)
        for want, have in zip((decode, prefill), got, strict=True):
            assert have != "full" or want == "full"


def test_phases_to_mode_decode_eager_note() -> None:
    (note,) = phases_to_mode("disabled", "breakable").unexpressed
    assert note.startswith("decode=disabled cannot be expressed with prefill=breakable")
    assert note.endswith("vLLM PIECEWISE runs decode as breakable")


def test_phases_to_mode_rejects_unknown_backend() -> None:
    with pytest.raises(ValueError, match=r"Did you mean breakable\?"):
        phases_to_mode("breakabel", "full")
    with pytest.raises(ValueError, match="Allowed: full, breakable, tc_piecewise, disabled"):
        phases_to_mode("full", "piecewise")


def test_phases_to_mode_reads_tc_piecewise_as_breakable() -> None:
    """SGLang <= 0.5.21's torch.compile piecewise prefill is vLLM's piecewise graph, noted."""
    match = phases_to_mode("full", "tc_piecewise")
    assert match.mode.name == "FULL_AND_PIECEWISE"
    assert match.unexpressed == ["prefill=tc_piecewise (SGLang's torch.compile piecewise graph) "
                                 "is read as breakable: vLLM's piecewise graphs are "
                                 "torch.compile's"]
