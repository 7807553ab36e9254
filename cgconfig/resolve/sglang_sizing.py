"""SGLang 0.5.23's own sizing decisions, applied to the draft from ``dialects/sglang_sizes``.

Three places where the engine decides a size before any rule runs:

* :func:`engine_flag_leaves` (step ``lock-inputs``): values SGLang sets as if the user had
  passed a flag, so they lock like user input (Muse Glimmer's prefill max_bs 512);
* :func:`expand_multimodal_decode` (step ``decode-sizes``): Qwen3-VL's decode max_bs raised to
  the running limit;
* :func:`align_deepep_prefill` (stage ``apply_deepep_adjustments``): DeepEP's multiple-of-8
  alignment, which upstream runs before the memory defaults, on the backend the
  compatibility rules left;
* :func:`fill_prefill_sizes` (stage ``handle_gpu_memory_settings``): the default prefill
  max_bs and its sizes.
"""

from __future__ import annotations

from cgconfig import model_archs as ma
from cgconfig.dialects import sglang_grid as sz
from cgconfig.dialects import sglang_sizes as ss
from cgconfig.dialects.sglang_releases import holds
from cgconfig.draft import Draft, SizeGenerator
from cgconfig.facts import Facts
from cgconfig.plan import Change, Decision
from cgconfig.provenance import Layer, Leaf, Origin

#: SGLang 0.5.23 ``apply_muse_glimmer_prefill_cuda_graph_max_bs_default``'s prefill max_bs.
MUSE_GLIMMER_PREFILL_MAX_BS = 512


def engine_flag_leaves(leaves: list[Leaf], facts: Facts, dialect: str) -> list[Leaf]:
    """Values SGLang sets as flags before parsing: they lock like user input.

    Only for SGLang input, and only when no flag of the user's already sets the key (an
    explicit ``--cuda-graph-max-bs-prefill`` wins upstream too).
    """
    from cgconfig.engines.versions import release_label

    if dialect != "sglang" or facts.model_arch not in ma.MUSE_GLIMMER_ARCHS:
        return []
    if any(leaf.key == "prefill.max_bs" and leaf.origin.layer == Layer.CONVENIENCE
           for leaf in leaves):
        return []
    origin = Origin(Layer.CONVENIENCE, f"{release_label('sglang')} apply_muse_glimmer_prefill_"
                    "cuda_graph_max_bs_default (--cuda-graph-max-bs-prefill "
                    f"{MUSE_GLIMMER_PREFILL_MAX_BS})", position=-1)
    return [Leaf("prefill.max_bs", MUSE_GLIMMER_PREFILL_MAX_BS, origin)]


def expand_multimodal_decode(draft: Draft, facts: Facts) -> Change | None:
    """Qwen3-VL on a large Hopper-or-newer GPU: a defaulted decode max_bs raised to
    ``--max-running-requests`` (``sglang_sizes.expand_multimodal_decode_max_bs``)."""
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


def _decision(draft: Draft, rule: str, why: str, changes: list[Change]) -> None:
    draft.decisions.append(Decision(rule=rule, kind="resolver", outcome="applied", why=why,
                                    changes=changes))


def size_generator(draft: Draft) -> SizeGenerator:
    """SGLang 0.5.23's grids, as the draft regenerates a derived list when its max_bs moves."""
    def generate(phase: str, max_bs: int) -> list[int]:
        padding = not draft.values["options.disable_padding"]
        if phase == "prefill":
            return sz.prefill_sizes(max_bs)
        if draft.facts["device"] == "cpu":
            return sz.cpu_sizes(max_bs, padding=padding)
        return sz.decode_sizes(max_bs, speculative=draft.derived["speculative"], padding=padding)

    return generate


def align_deepep_prefill(draft: Draft, facts: Facts) -> None:
    """DeepEP with breakable prefill: the prefill sizes rounded up to multiples of 8, as
    SGLang 0.5.23 ``cuda_graph_hook.apply_deepep_adjustments`` does (stage
    ``apply_deepep_adjustments``, after the compatibility cascade's rules have decided the
    prefill backend and before the memory defaults, so an unset max_bs is taken as 2048).

    An explicit list is rule ``feature.deepep-prefill-align-8``'s (it locks); this aligns the
    derived one.
    """
    if draft.size_generator is None:
        draft.size_generator = size_generator(draft)
    adjusted = ss.deepep_prefill_adjustment(
        moe_a2a_backend=facts.moe_a2a_backend,
        prefill_breakable=draft.get("prefill.backend") == "breakable",
        max_bs=draft.get("prefill.max_bs"), bs=draft.get("prefill.bs"))
    if adjusted is None or "prefill.bs" in draft.locked:
        return
    why = ("DeepEP with breakable prefill: sizes rounded up to multiples of 8 before the "
           "memory defaults (unset max_bs taken as 2048)")
    changes = [draft.record("prefill.max_bs", adjusted[0], source="resolver", layer="resolver",
                            why=why),
               draft.record("prefill.bs", adjusted[1], source="resolver", layer="resolver",
                            why=why)]
    _decision(draft, "sizes.deepep-prefill-align", why, [c for c in changes if c])
    # The list is still SGLang's own (not the user's): a later max_bs clamp regenerates it
    # from the grid (parallel_hook.handle_data_parallelism), unaligned.
    draft.derived_sizes.add("prefill")


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
        value = ss.default_prefill_max_bs(
            chunked, use_mla=facts.use_mla, pp_size=1, prefill_breakable=breakable,
            prefill_bs_locked="prefill.bs" in draft.locked,
            max_total_tokens=facts.max_total_tokens, model_path=facts.model_path,
            mla_from_chunked=holds("mla-prefill-max-bs-from-chunked", draft.sglang_version))
        why = (f"prefill max_bs from the chunked-prefill size {chunked} "
               f"({derived['chunked_prefill_source']}): {value}")
        change = draft.record("prefill.max_bs", value, source="default (derived)",
                              layer="default", why=why)
        _decision(draft, "sizes.prefill-max-bs-default", why, [change] if change else [])
    if not pbs:
        draft.derived_sizes.add("prefill")
        max_bs = draft.get("prefill.max_bs")
        draft.record("prefill.bs", sz.prefill_sizes(max_bs), source="default (derived)",
                     layer="default", why=f"generated from prefill.max_bs={max_bs}")
