"""SGLang 0.5.23 ``arg_groups/memory_hook.py:handle_gpu_memory_settings``: the default decode and
prefill max_bs and their size lists (stage ``memory_hook.handle_gpu_memory_settings``, before
that stage's rules), with Qwen3-VL's decode expansion; and the grids a derived list is
regenerated from when a later rule moves its max_bs.
"""

from __future__ import annotations

from cgconfig.draft import Draft, SizeGenerator
from cgconfig.engines.release_change import holds_in
from cgconfig.engines.sglang import grid as sz
from cgconfig.engines.sglang import model_archs as ma
from cgconfig.engines.sglang import sizes as ss
from cgconfig.engines.sglang.releases import (
    CPU_DECODE_FROM_TORCH_COMPILE,
    DECODE_MAX_BS_APPENDED,
    DECODE_MAX_BS_RUNNING_CLAMP,
    PREFILL_CONTEXT_LENGTH_CLAMP,
    PREFILL_GRID_HAS_576,
    PREFILL_TOKEN_CAPS,
    QWEN3_VL_RUNNING_LIMIT,
)
from cgconfig.facts import Facts
from cgconfig.plan import Change
from cgconfig.resolve.steps import max_bs_from_list, resolver_decision


def answered_release(draft: Draft) -> str:
    """The SGLang release the line is answered for (set by the pipeline before any step)."""
    if draft.engine_version is None:
        raise ValueError("an SGLang step ran before the pipeline chose the release")
    return draft.engine_version


def size_generator(draft: Draft) -> SizeGenerator:
    """SGLang's grids (the answered release's: ``releases.PREFILL_GRID_HAS_576``,
    ``DECODE_MAX_BS_APPENDED``, ``CPU_DECODE_FROM_TORCH_COMPILE``), as the draft regenerates a
    derived list when its max_bs moves."""
    release = answered_release(draft)

    def generate(phase: str, max_bs: int) -> list[int]:
        padding = not draft.values["options.disable_padding"]
        if phase == "prefill":
            return sz.prefill_sizes(max_bs, with_576=holds_in(PREFILL_GRID_HAS_576, release))
        if draft.facts["device"] == "cpu" and holds_in(CPU_DECODE_FROM_TORCH_COMPILE, release):
            return sz.cpu_sizes(max_bs, padding=padding)
        return sz.decode_sizes(max_bs, speculative=draft.derived["speculative"], padding=padding,
                               append_max_bs=holds_in(DECODE_MAX_BS_APPENDED, release))

    return generate


def expand_multimodal_decode(draft: Draft, facts: Facts) -> Change | None:
    """Qwen3-VL on a large Hopper-or-newer GPU: a defaulted decode max_bs raised to
    ``--max-running-requests`` (``engines/sglang/sizes.expand_multimodal_decode_max_bs``)."""
    max_bs = draft.get("decode.max_bs")
    expanded = ss.expand_multimodal_decode_max_bs(
        max_bs, gpu_memory_gib=draft.derived["gpu_memory_gib"],
        max_running_requests=facts.max_running_requests,
        decode_max_bs_locked="decode.max_bs" in draft.locked,
        decode_bs_locked="decode.bs" in draft.locked, gpu_sm=facts.gpu_sm,
        is_multimodal=facts.is_multimodal,
        model_type=ma.QWEN3_VL_MODEL_TYPES.get(facts.model_arch or ""))
    if expanded == max_bs:
        return None
    return draft.record("decode.max_bs", expanded, source="resolver", layer="resolver",
                        why="Qwen3-VL on a large GPU: decode max_bs raised to "
                            f"--max-running-requests {expanded}")


def fill_decode_sizes(draft: Draft, facts: Facts) -> None:
    """Default decode max_bs and size list, as SGLang 0.5.23's memory handler does
    (``arg_groups/memory_hook.py:handle_gpu_memory_settings``); prefill is
    :func:`fill_prefill_sizes`."""
    d = draft.derived
    release = answered_release(draft)
    draft.size_generator = size_generator(draft)
    src, layer = "resolver", "resolver"

    # --- decode -------------------------------------------------------------------------
    bs = draft.get("decode.bs")
    if facts.device == "cpu" and holds_in(CPU_DECODE_FROM_TORCH_COMPILE, release):
        bound = max(bs) if bs else draft.get("options.torch_compile_max_bs")
        why = ("CPU graphs come from torch.compile: decode.max_bs is "
               + ("max(decode.bs)" if bs else "--torch-compile-max-bs"))
        changes = [draft.record("decode.max_bs", bound, source=src, layer=layer, why=why)]
        if bs:
            # SGLang sets torch_compile_max_bs = max(bs) on CPU, so every listed size compiles.
            changes.append(draft.record("options.torch_compile_max_bs", bound, source=src,
                                        layer=layer, why="CPU: torch_compile_max_bs = max(bs)"))
        resolver_decision(draft, "sizes.cpu-decode-bound", why, changes)
    elif bs:
        max_bs_from_list(draft, "decode", bs)
    elif draft.get("decode.max_bs") is None:
        tier = sz.memory_tier(d["gpu_memory_gib"], facts.device, release)
        value = tier.decode_max_bs(facts.tp_size)
        why = (f"GPU memory tier {tier.label} ({d['gpu_memory_source']}), tp_size="
               f"{facts.tp_size}: default decode max_bs {value}")
        changes = [draft.record("decode.max_bs", value, source="default (derived)", layer="default",
                                why=why)]
        mrr = facts.max_running_requests
        clamped = ss.default_decode_max_bs(value, mrr)
        if clamped != value and holds_in(DECODE_MAX_BS_RUNNING_CLAMP, release):
            why2 = f"default decode max_bs clamped to --max-running-requests {mrr}"
            changes.append(draft.record("decode.max_bs", clamped, source="resolver", layer=layer,
                                        why=why2))
            why = f"{why}; {why2}"
        if holds_in(QWEN3_VL_RUNNING_LIMIT, release):
            changes.append(expand_multimodal_decode(draft, facts))
        resolver_decision(draft, "sizes.decode-max-bs-default", why, changes)
    if not bs:
        draft.derived_sizes.add("decode")
        generated = draft.size_generator("decode", draft.get("decode.max_bs"))
        cpu_grid = facts.device == "cpu" and holds_in(CPU_DECODE_FROM_TORCH_COMPILE, release)
        grid = ("the CPU grid" if cpu_grid else
                "every size (padding disabled)" if draft.get("options.disable_padding") else
                f"the speculative-decoding grid ({facts.speculative_algorithm})"
                if d["speculative"] else "the decode grid")
        draft.record("decode.bs", generated, source="default (derived)", layer="default",
                     why=f"generated from decode.max_bs={draft.get('decode.max_bs')} by {grid}")


def fill_prefill_sizes(draft: Draft, facts: Facts) -> None:
    """Prefill max_bs and sizes as SGLang 0.5.23's memory hook derives them.

    An unset max_bs defaults from the chunked-prefill size (MLA ``min(8192, ·)``,
    ``--max-total-tokens``, the ``llama-2`` path cap); an explicit bs list keeps that default
    max_bs (unlike decode); chunked prefill off (-1) gives max_bs -1 and no sizes. A list the
    DeepEP alignment wrote (:func:`align_deepep_prefill`) is kept with its max_bs. The
    pipeline-parallel cap is left to rule ``breakable.pp-max-tokens``, so it shows as a
    decision of its own.
    """
    derived = draft.derived
    pbs = draft.get("prefill.bs")
    breakable = draft.get("prefill.backend") == "breakable"
    if draft.get("prefill.max_bs") is None:
        chunked = derived["chunked_prefill_size"]
        caps = holds_in(PREFILL_TOKEN_CAPS, answered_release(draft))
        value = ss.default_prefill_max_bs(
            chunked, use_mla=facts.use_mla, pp_size=1, prefill_breakable=breakable,
            prefill_bs_locked="prefill.bs" in draft.locked,
            max_total_tokens=facts.max_total_tokens if caps else None,
            model_path=facts.model_path if caps else None, release=answered_release(draft))
        why = (f"prefill max_bs from the chunked-prefill size {chunked} "
               f"({derived['chunked_prefill_source']}): {value}")
        change = draft.record("prefill.max_bs", value, source="default (derived)",
                              layer="default", why=why)
        resolver_decision(draft, "sizes.prefill-max-bs-default", why, [change] if change else [])
    max_bs = draft.get("prefill.max_bs")
    if facts.context_length is not None and max_bs is not None \
            and max_bs > facts.context_length \
            and holds_in(PREFILL_CONTEXT_LENGTH_CLAMP, answered_release(draft)):
        why = (f"prefill max_bs {max_bs} clamped to --context-length {facts.context_length} "
               f"({PREFILL_CONTEXT_LENGTH_CLAMP[0].cites})")
        change = draft.record("prefill.max_bs", facts.context_length, source="default (derived)",
                              layer="default", why=why)
        resolver_decision(draft, "sizes.prefill-context-length-clamp", why,
                          [change] if change else [])
    if not pbs:
        draft.derived_sizes.add("prefill")
        max_bs = draft.get("prefill.max_bs")
        draft.record("prefill.bs", size_generator(draft)("prefill", max_bs),
                     source="default (derived)",
                     layer="default", why=f"generated from prefill.max_bs={max_bs}")
