"""SGLang 0.5.23's model runner at start-up (stage ``runtime``, after every rule): which
configured sizes are captured (``model_executor/runner/base_cuda_graph_runner.py:
get_batch_sizes_to_capture``: the request-pool cap and the alignment filter), the sizes
torch.compile compiles, and the decode coverage the captured sizes leave.
"""

from __future__ import annotations

from typing import Any, cast

from cgconfig.draft import Draft
from cgconfig.engines.release_change import ReleaseChange, holds_in, value_at
from cgconfig.engines.sglang import grid as sz
from cgconfig.engines.sglang.engine_settings import speculative_max_running_requests
from cgconfig.engines.sglang.releases import (
    REQUEST_POOL_PER_ATTN_DP_WORKER,
    REQUEST_POOL_SHARE_AT_LEAST_ONE,
    RUNNER_POOL_ALIGNED,
)
from cgconfig.errors import InputError
from cgconfig.facts import Facts
from cgconfig.fields.values import round_up
from cgconfig.line.table import load_table
from cgconfig.line.versions import label, newest
from cgconfig.plan import Change, Decision

#: From 0.5.22 ROCm leaves the capture alignment off the attention-CP size
#: (``utils/common.py:get_cuda_graph_batch_size_alignment``: ``if not is_hip() and ...``).
HIP_SKIPS_CP_ALIGNMENT: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.22", None, "ROCm skips the attention-CP capture alignment",
                  "python/sglang/srt/utils/common.py:get_cuda_graph_batch_size_alignment"),
)


#: Where the decode runner's ``get_batch_sizes_to_capture`` (its filter and its
#: ``assert len(capture_bs) > 0 and capture_bs[0] > 0``) lives, and how the release turns the
#: decode graph off (the refusal's remedy).
RUNNER_FILTER_FILE: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.14", "the decode runner's filter is in cuda_graph_runner.py",
                  "python/sglang/srt/model_executor/cuda_graph_runner.py:"
                  "get_batch_sizes_to_capture",
                  ("python/sglang/srt/model_executor/cuda_graph_runner.py", "--disable-cuda-graph")),
    ReleaseChange("0.5.14", None, "the decode runner's filter is in runner/base_cuda_graph_runner.py",
                  "python/sglang/srt/model_executor/runner/base_cuda_graph_runner.py:"
                  "get_batch_sizes_to_capture",
                  ("python/sglang/srt/model_executor/runner/base_cuda_graph_runner.py",
                   "--cuda-graph-backend-decode disabled")),
)


def capture(draft: Draft, facts: Facts) -> dict[str, dict[str, Any]]:
    """Configured lists → what will actually be captured, per phase."""
    capture: dict[str, dict[str, Any]] = {}
    d = draft.derived
    # decode
    dec_backend = draft.get("decode.backend")
    alignment = sz.capture_alignment(
        tp_size=facts.tp_size, dp_size=facts.dp_size,
        enable_dp_attention=facts.enable_dp_attention, attn_cp_size=facts.attn_cp_size,
        moe_a2a_backend=facts.moe_a2a_backend,
        enable_two_batch_overlap=facts.enable_two_batch_overlap,
        request_width=d["request_width"], pool_size=_request_pool(draft, facts),
        cp_aligned=not (facts.device == "hip" and holds_in(
            HIP_SKIPS_CP_ALIGNMENT, draft.engine_version or newest("sglang"))))
    configured = list(draft.get("decode.bs") or [])
    # SGLang 0.5.23 creates no CPU decode runner without torch.compile: configured, not
    # captured (rule platform.cpu-decode-needs-torch-compile says why).
    no_runner = facts.device == "cpu" and not draft.get("options.enable_torch_compile")
    runs = dec_backend != "disabled" and not no_runner
    pool_aligned = holds_in(RUNNER_POOL_ALIGNED, draft.engine_version or newest("sglang"))
    sizes = sz.filter_capture_sizes(configured, alignment, pool_aligned=pool_aligned) \
        if runs else []
    if runs:
        _refuse_unusable_sizes(draft, facts, configured, sizes, alignment)
        _record_filter(draft, configured, sizes, alignment, _pool_text(draft, facts))
    compile_list = sz.compile_sizes(
        sizes, enable_torch_compile=draft.get("options.enable_torch_compile"),
        torch_compile_max_bs=draft.get("options.torch_compile_max_bs"))
    capture["decode"] = {
        "backend": dec_backend if sizes else "disabled",
        "sizes": sizes,
        "compile_sizes": compile_list,
        "alignment": {"multiple": alignment.multiple, "request_width": alignment.request_width,
                      "pool_size": alignment.pool_size},
    }
    # prefill: no filter upstream; the list is used sorted.
    pre_backend = draft.get("prefill.backend")
    psizes = sorted(set(draft.get("prefill.bs") or [])) if pre_backend != "disabled" else []
    if pre_backend != "disabled" and not psizes:
        draft.warnings.append("prefill: no capture sizes (prefill max_bs below 4 tokens or "
                              "chunked prefill disabled); prefill runs eagerly")
    capture["prefill"] = {"backend": pre_backend if psizes else "disabled", "sizes": psizes}
    _refuse_zero_worker_limit(draft, facts)
    _coverage(draft, facts, sizes, dec_backend)
    return capture


def _attn_dp_size(draft: Draft, facts: Facts) -> int:
    return facts.dp_size if draft.derived["attn_dp_enabled"] else 1


def _running_limit(draft: Draft, facts: Facts) -> int | None:
    """The resolved ``max_running_requests``: ``--max-running-requests``, or speculative
    decoding's 48 when it is unset (``engine_settings.speculative_max_running_requests``; the
    request-pool corpus measured it in 0.5.8 to 0.5.23 for EAGLE); ``None`` otherwise."""
    spec = speculative_max_running_requests(facts.max_running_requests,
                                            bool(draft.derived["speculative"]))
    return cast("int", spec.value) if spec is not None else facts.max_running_requests


def _request_pool(draft: Draft, facts: Facts) -> int | None:
    """The request pool a worker's decode filter caps the sizes at: the resolved
    ``max_running_requests`` (:func:`_running_limit`), or under DP attention the worker's share
    of it where the release sizes the pool per worker
    (``releases.REQUEST_POOL_PER_ATTN_DP_WORKER``); ``None`` when it is unset (the pool then
    comes from the KV cache at start-up). A share below 1 is taken as 1 where the release does
    (``releases.REQUEST_POOL_SHARE_AT_LEAST_ONE``, 0.5.23); before it the pool is 0 and the
    filter's start-up check refuses the line (:func:`_refuse_unusable_sizes`)."""
    mrr = _running_limit(draft, facts)
    release = draft.engine_version or newest("sglang")
    if mrr is None or not holds_in(REQUEST_POOL_PER_ATTN_DP_WORKER, release):
        return mrr
    share = mrr // _attn_dp_size(draft, facts)
    return max(1, share) if holds_in(REQUEST_POOL_SHARE_AT_LEAST_ONE, release) else share


#: SGLang 0.5.23's capture filter, cited by its decisions.
FILTER_SOURCE = (f"sglang {newest('sglang')} python/sglang/srt/model_executor/runner/"
                 "base_cuda_graph_runner.py:get_batch_sizes_to_capture")


def _refuse_unusable_sizes(draft: Draft, facts: Facts, configured: list[int], sizes: list[int],
                           alignment: sz.CaptureAlignment) -> None:
    """SGLang's decode runner stops at start-up unless the filtered list is non-empty and its
    smallest size is above 0 (``get_batch_sizes_to_capture``: ``assert len(capture_bs) > 0 and
    capture_bs[0] > 0``; the same in 0.5.18 to 0.5.23). Its resolution plans such sizes (a
    decode max_bs of 0 plans ``[0]``), so the plan is SGLang's and the start-up refuses it."""
    if sizes and sizes[0] > 0:
        return
    if not sizes and any(r.startswith("attention-TP gather") for r in alignment.reasons) \
            and any(s > 0 for s in configured):
        # (Every configured size 0 or below is refused with the gather or without it: the
        # filter keeps no size above 0 either way, and appends the pool only to a list whose
        # largest size exceeds it. SGLang 0.5.11 held-out batch 3, case 193: decode max_bs -4
        # under DeepEP with TP 8, refused at start-up.)
        # The MoE all-to-all's attention-TP gather without DP attention is not proven against
        # SGLang's filter (the oracle's start-up stage kept a size this alignment drops).
        draft.warnings.append(
            "decode: no configured size survives the capture filter (alignment "
            f"{alignment.multiple}, width {alignment.request_width}); decode runs eagerly")
        return
    release = draft.engine_version or newest("sglang")
    shown = label("sglang", release)
    path, off = cast("tuple[str, str]", value_at(RUNNER_FILTER_FILE, release))
    if alignment.pool_size == 0:
        said = (f"each attention-DP worker's request pool is {_running_limit(draft, facts)} // "
                f"{_attn_dp_size(draft, facts)} = 0 requests, so the smallest is 0")
    else:
        said = (f"the smallest is {sizes[0]}" if sizes else
                f"none survives the capture filter (alignment {alignment.multiple}, "
                f"width {alignment.request_width})")
    raise InputError(
        f"{shown} plans the decode sizes {_short(configured)} and stops at start-up: {said}, "
        "and the decode graph runner asserts capture_bs is non-empty with capture_bs[0] > 0",
        where=("--max-running-requests" if alignment.pool_size == 0 else
               ", ".join(draft.user_inputs("decode.bs") or draft.user_inputs("decode.max_bs"))
               or "decode.bs"),
        hint=("give decode sizes of 1 or more that the alignment keeps, or "
              f"{off} ({shown} {path}:get_batch_sizes_to_capture)"))


#: Where the worker checks its running-request limit after the graphs are captured (SGLang
#: 0.5.8 ``tp_worker.py:281``, 0.5.9 ``:282``), the limit from ``ModelRunner.initialize``.
WORKER_LIMIT_SOURCE = ("python/sglang/srt/managers/tp_worker.py:TpModelWorker.__init__ "
                       "('assert self.max_running_requests > 0'), the limit "
                       "model_executor/model_runner.py:ModelRunner.initialize's "
                       "min(max_running_requests // dp_size, req_to_token_pool.size)")


def _refuse_zero_worker_limit(draft: Draft, facts: Facts) -> None:
    """SGLang 0.5.8 and 0.5.9 size each worker's request pool from the whole
    ``--max-running-requests`` (``releases.REQUEST_POOL_PER_ATTN_DP_WORKER`` does not hold), so a
    share of 0 under DP attention passes the capture filter; the worker's limit is still the
    share (``ModelRunner.initialize``: ``min(max_running_requests // dp_size, pool)``), and
    ``TpModelWorker.__init__`` asserts it above 0 after the graphs are captured (with or
    without any). From 0.5.10 the pool is the share, so the filter refuses first
    (:func:`_refuse_unusable_sizes`); 0.5.23 takes the share as at least 1."""
    release = draft.engine_version or newest("sglang")
    if holds_in(REQUEST_POOL_PER_ATTN_DP_WORKER, release):
        return
    mrr = _running_limit(draft, facts)
    dp = _attn_dp_size(draft, facts)
    if mrr is None or mrr // dp > 0:
        return
    shown = label("sglang", release)
    raise InputError(
        f"{shown} stops at start-up: each attention-DP worker runs {mrr} // {dp} = 0 requests "
        "(ModelRunner.initialize), and the worker asserts max_running_requests > 0",
        where="--max-running-requests",
        hint=(f"give --max-running-requests of at least --dp-size ({dp}) "
              f"({shown} {WORKER_LIMIT_SOURCE.split(' (')[0]})"))


def _pool_text(draft: Draft, facts: Facts) -> str:
    """How the cap's decision names the request pool (``{bound}``: the pool as the filter uses
    it, rounded up to the alignment where the release does)."""
    mrr = _running_limit(draft, facts)
    pool = _request_pool(draft, facts)
    named = (f"--max-running-requests {mrr}" if facts.max_running_requests is not None else
             f"speculative decoding's max_running_requests {mrr} (--max-running-requests unset)")
    if pool == mrr:
        return f"{named} caps the captured decode sizes at the request pool ({{bound}})"
    return (f"{named} caps the captured decode sizes at each attention-DP "
            f"worker's request pool ({mrr} // {_attn_dp_size(draft, facts)} → {{bound}})")


def _record_filter(draft: Draft, configured: list[int], sizes: list[int],
                   alignment: sz.CaptureAlignment, pool_text: str) -> None:
    """Record what the capture filter changed: the request-pool cap
    (``--max-running-requests``) as its own decision, then the alignment."""
    pooled = sorted(set(configured))
    before = configured
    pool = alignment.pool_size
    if pool is not None and pooled and pooled[-1] > round_up(pool, alignment.multiple):
        bound = round_up(pool, alignment.multiple)
        capped = sorted({s for s in pooled if s <= bound} | {bound})
        dropped = sorted(set(pooled) - set(capped))
        added = " and adds the pool size" if bound not in pooled else ""
        draft.decisions.append(Decision(
            rule="sizes.max-running-requests-cap", kind="resolver", outcome="applied",
            why=f"{pool_text.format(bound=bound)}: the filter drops {_short(dropped)}{added}",
            changes=[Change("capture.decode.sizes", configured, capped)], source=FILTER_SOURCE))
        pooled = before = capped
    if sizes == pooled:
        return
    dropped = sorted(set(pooled) - set(sizes))
    why = "capture filter: " + ("; ".join(alignment.reasons) or "sorted and deduplicated")
    draft.decisions.append(Decision(
        rule="sizes.capture-filter", kind="resolver", outcome="applied",
        why=f"{why} (dropped {_short(dropped)})" if dropped else why,
        changes=[Change("capture.decode.sizes", before, sizes)], source=FILTER_SOURCE))


def _coverage(draft: Draft, facts: Facts, sizes: list[int], backend: str) -> None:
    """The batches a worker runs eagerly: its scheduler runs up to its share of
    ``--max-running-requests`` (``max_running_requests // dp_size`` under DP attention, in
    every release: 0.5.8's ``ModelRunner.initialize``, 0.5.10's ``_resolve_max_num_reqs``), of
    the resolved limit (:func:`_running_limit`: speculative decoding's 48 when it is unset)."""
    mrr = _running_limit(draft, facts)
    if backend == "disabled" or not sizes or mrr is None:
        return
    dp = _attn_dp_size(draft, facts)
    running = max(1, mrr // dp)
    if running <= sizes[-1]:
        return
    given = (f"--max-running-requests {mrr}" if facts.max_running_requests is not None else
             f"speculative decoding's running-request limit {mrr} (--max-running-requests "
             "unset)")
    bound = given if dp == 1 else \
        f"each attention-DP rank's share of {given} ({mrr} // {dp} = {running})"
    message = (f"coverage: {bound} exceeds the largest decode graph ({sizes[-1]}); batches of "
               f"{sizes[-1] + 1}..{running} requests run eagerly, without CUDA graphs")
    draft.warnings.append(message)
    draft.decisions.append(Decision(
        rule="coverage.decode-eager-range", kind="resolver", outcome="warned", why=message,
        hint=f"raise {_decode_max_bs_flag(draft)} to {running} to cover every batch"))


def _decode_max_bs_flag(draft: Draft) -> str:
    """The release's flag for the decode max_bs: ``--cuda-graph-max-bs-decode`` where its parser
    has it, else ``--cuda-graph-max-bs`` (SGLang 0.5.8 and 0.5.10 lack the former)."""
    table = load_table("sglang", draft.engine_version or newest("sglang"))
    return "--cuda-graph-max-bs-decode" if table.lookup("--cuda-graph-max-bs-decode") \
        is not None else "--cuda-graph-max-bs"


def _short(values: list[int]) -> str:
    return str(values) if len(values) <= 6 else f"[{values[0]}, {values[1]}, …, {values[-1]}]"
