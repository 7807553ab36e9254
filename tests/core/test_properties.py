"""Property tests (hypothesis) of resolution: determinism, precedence, round trips,
input-form equivalence, idempotence and lock safety. Strategies are explicit."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cgconfig import resolve_args
from cgconfig.api import request_from_argv
from cgconfig.api import resolve_request as resolve
from cgconfig.errors import CgConfigError
from cgconfig.fields.config import CudaGraphConfig, default_value
from cgconfig.plan import Plan

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def resolve_plain(argv: list[str]) -> Plan:
    request = request_from_argv(argv)
    request.use_rules = False
    return resolve(request)


# --- strategies ---------------------------------------------------------------------------

pos_int = st.integers(min_value=1, max_value=1024)
size_list = st.lists(st.integers(min_value=1, max_value=512), min_size=1, max_size=8)
backend = st.sampled_from(["full", "breakable", "disabled"])
gpu_gib = st.sampled_from(["16", "19.9", "20", "24", "40", "60", "80", "141", "160", "192"])


@st.composite
def fact_args(draw: st.DrawFn) -> list[str]:
    """A random, valid set of deployment-fact flags."""
    argv: list[str] = []
    tp = draw(st.sampled_from([1, 2, 4, 8]))
    argv += ["--tp-size", str(tp)]
    if draw(st.booleans()):
        argv += ["--gpu-memory-gib", draw(gpu_gib)]
    if draw(st.booleans()):
        argv += ["--max-running-requests", str(draw(st.integers(1, 600)))]
    if draw(st.booleans()):
        argv += ["--chunked-prefill-size", str(draw(st.sampled_from([2048, 4096, 8192, 16384])))]
    if draw(st.booleans()):
        argv += ["--enable-two-batch-overlap"]
    if draw(st.booleans()):
        argv += ["--speculative-algorithm", draw(st.sampled_from(["EAGLE", "NEXTN"])),
                 "--speculative-num-draft-tokens", str(draw(st.integers(1, 8)))]
    if tp > 1 and draw(st.booleans()):
        dp = draw(st.sampled_from([d for d in (1, 2, 4, 8) if tp % d == 0]))
        argv += ["--enable-dp-attention", "--dp-size", str(dp)]
    if draw(st.booleans()):
        argv += ["--disaggregation-mode", draw(st.sampled_from(["null", "prefill", "decode"]))]
    if draw(st.booleans()):
        argv += ["--attention-backend", draw(st.sampled_from(["fa3", "flashinfer", "triton"]))]
    if draw(st.booleans()):
        argv += ["--enable-torch-compile"]
    return argv


@st.composite
def config_args(draw: st.DrawFn) -> list[str]:
    """A random, valid set of graph-config flags from every layer."""
    argv: list[str] = []
    if draw(st.booleans()):
        argv += ["--disable-cuda-graph"]
    if draw(st.booleans()):
        argv += [draw(st.sampled_from(["--disable-decode-cuda-graph",
                                       "--disable-prefill-cuda-graph"]))]
    if draw(st.booleans()):
        argv += ["--cuda-graph-backend-decode", draw(backend)]
    if draw(st.booleans()):
        argv += ["--cuda-graph-backend-prefill", draw(backend)]
    if draw(st.booleans()):
        argv += ["--cuda-graph-max-bs-decode", str(draw(pos_int))]
    if draw(st.booleans()):
        argv += ["--cuda-graph-bs-decode", *map(str, draw(size_list))]
    if draw(st.booleans()):
        argv += ["--cuda-graph-max-bs-prefill", str(draw(st.integers(1, 16384)))]
    if draw(st.booleans()):
        doc = {"decode": {"max_bs": draw(pos_int)}, "prefill": {"backend": draw(backend)}}
        argv += ["--cuda-graph-config", json.dumps(doc)]
    return argv


def outcome(argv: list[str], *, rules: bool = True) -> tuple:
    """Either the plan's comparable parts or the kind of error (both forms must agree)."""
    try:
        plan = resolve_args(argv) if rules else resolve_plain(argv)
    except CgConfigError as exc:
        return ("error", type(exc).__name__, exc.exit_code)
    return ("ok", plan.config, plan.capture, plan.locked)


# --- determinism --------------------------------------------------------------------------


@SETTINGS
@given(config_args(), fact_args())
def test_same_argv_gives_byte_identical_plan_json(cfg: list[str], facts: list[str]) -> None:
    argv = cfg + facts
    try:
        first = resolve_args(argv).to_json()
    except CgConfigError as exc:
        second_exc = None
        try:
            resolve_args(argv)
        except CgConfigError as again:
            second_exc = again
        assert second_exc is not None and str(second_exc) == str(exc)
        return
    assert resolve_args(argv).to_json() == first


# --- precedence monotonicity --------------------------------------------------------------

LAYER_INPUTS = {
    # key → layer → function(value) giving argv (None: the layer cannot write that value)
    "prefill.backend": {
        1: lambda v: ["--disable-cuda-graph"] if v == "disabled" else None,
        2: lambda v: ["--disable-prefill-cuda-graph"] if v == "disabled" else None,
        3: lambda v: ["--cuda-graph-backend-prefill", v],
        4: lambda v: ["--cuda-graph-config", json.dumps({"prefill": {"backend": v}})],
    },
    "decode.backend": {
        1: lambda v: ["--disable-cuda-graph"] if v == "disabled" else None,
        2: lambda v: ["--disable-decode-cuda-graph"] if v == "disabled" else None,
        3: lambda v: ["--cuda-graph-backend-decode", v],
        4: lambda v: ["--cuda-graph-config", json.dumps({"decode": {"backend": v}})],
    },
    "decode.max_bs": {
        3: lambda v: ["--cuda-graph-max-bs-decode", str(v)],
        4: lambda v: ["--cuda-graph-config", json.dumps({"decode": {"max_bs": v}})],
    },
    "prefill.max_seq_len": {
        3: lambda v: ["--cuda-graph-max-seq-len-prefill", str(v)],
        4: lambda v: ["--cuda-graph-config", json.dumps({"prefill": {"max_seq_len": v}})],
    },
}


@st.composite
def layered_inputs(draw: st.DrawFn) -> tuple[str, list[tuple[int, object, list[str]]]]:
    key = draw(st.sampled_from(sorted(LAYER_INPUTS)))
    values = backend if key.endswith("backend") else pos_int
    inputs = []
    for _ in range(draw(st.integers(0, 4))):
        layer = draw(st.sampled_from(sorted(LAYER_INPUTS[key])))
        value = draw(values)
        argv = LAYER_INPUTS[key][layer](value)
        if argv is None:
            value, argv = "disabled", LAYER_INPUTS[key][layer]("disabled")
        inputs.append((layer, value, argv))
    return key, draw(st.permutations(inputs))


def _final(plan: Plan, key: str):
    phase, name = key.split(".")
    return plan.config[phase][name]


def _expected_winner(inputs: list[tuple[int, object, list[str]]]) -> object:
    """Highest layer wins; within a layer, the last in argv order."""
    top = max(layer for layer, _, _ in inputs)
    return [v for layer, v, _ in inputs if layer == top][-1]


@SETTINGS
@given(layered_inputs(), st.data())
def test_highest_layer_wins_and_lower_layers_never_change_the_winner(case, data) -> None:
    key, inputs = case
    assume(inputs)
    argv = [t for _, _, a in inputs for t in a]
    plan = resolve_plain(argv)
    winner = _expected_winner(inputs)
    assert _final(plan, key) == winner
    top = max(layer for layer, _, _ in inputs)
    values = backend if key.endswith("backend") else pos_int
    # a lower-layer input, anywhere in argv, never changes the winner
    lower_layers = [layer for layer in LAYER_INPUTS[key] if layer < top]
    if lower_layers:
        layer = data.draw(st.sampled_from(lower_layers))
        value = data.draw(values)
        extra = LAYER_INPUTS[key][layer](value) or LAYER_INPUTS[key][layer]("disabled")
        at = data.draw(st.integers(0, len(inputs)))
        parts = [a for _, _, a in inputs]
        parts.insert(at, extra)
        assert _final(resolve_plain([t for p in parts for t in p]), key) == winner
    # a higher-layer input, anywhere in argv, wins
    higher_layers = [layer for layer in LAYER_INPUTS[key] if layer > top]
    if higher_layers:
        layer = data.draw(st.sampled_from(higher_layers))
        value = data.draw(values)
        extra = LAYER_INPUTS[key][layer](value)
        if extra is None:
            value, extra = "disabled", LAYER_INPUTS[key][layer]("disabled")
        at = data.draw(st.integers(0, len(inputs)))
        parts = [a for _, _, a in inputs]
        parts.insert(at, extra)
        assert _final(resolve_plain([t for p in parts for t in p]), key) == value


# --- diff-only round trip -----------------------------------------------------------------

PHASE_VALUES = {
    "decode": {"backend": backend, "max_bs": pos_int, "bs": size_list},
    "prefill": {"backend": backend, "max_bs": st.integers(1, 65536), "bs": size_list,
                "max_context_size": st.integers(1, 10**6), "max_seq_len": pos_int,
                "full_prefill_max_req": pos_int, "full_prefill_prefix_chunk_tokens": pos_int},
}


@st.composite
def config_dicts(draw: st.DrawFn) -> dict:
    doc: dict = {}
    for phase, fields in PHASE_VALUES.items():
        keys = draw(st.lists(st.sampled_from(sorted(fields)), unique=True))
        if keys or draw(st.booleans()):
            doc[phase] = {k: draw(fields[k]) for k in keys}
    return doc


@SETTINGS
@given(config_dicts())
def test_to_dict_is_diff_only_and_round_trips(doc: dict) -> None:
    cfg = CudaGraphConfig.from_dict(doc)
    out = cfg.to_dict()
    assert CudaGraphConfig.from_dict(out) == cfg
    for phase in ("decode", "prefill"):
        body = out.get(phase, {})
        assert body or phase not in out  # no empty phase objects
        model = cfg.phase(phase)
        for name in type(model).model_fields:
            default = default_value(f"{phase}.{name}")
            if name in body:
                assert body[name] != default
                assert body[name] == getattr(model, name)
            else:
                assert getattr(model, name) == default
    # JSON text round trip too
    assert CudaGraphConfig.from_dict(json.loads(json.dumps(out))) == cfg


def test_default_config_serialises_to_empty_dict() -> None:
    assert CudaGraphConfig().to_dict() == {}
    assert CudaGraphConfig.from_dict({"decode": {"backend": "full"}}).to_dict() == {}


# --- input-form equivalence ---------------------------------------------------------------


@SETTINGS
@given(pos_int, fact_args())
def test_max_bs_forms_are_equivalent(n: int, facts: list[str]) -> None:
    forms = [
        ["--cuda-graph-max-bs", str(n)],
        ["--cuda-graph-max-bs-decode", str(n)],
        ["--cuda-graph-config", json.dumps({"decode": {"max_bs": n}})],
    ]
    # The aliases are SGLang 0.5.19's (0.5.20 removed them): every form names that release.
    results = [outcome(["--engine-version", "0.5.19", *form, *facts]) for form in forms]
    assert results[0] == results[1] == results[2]
    if results[0][0] == "ok":
        assert "decode.max_bs" in results[0][3]


@SETTINGS
@given(size_list, fact_args())
def test_bs_list_forms_are_equivalent(sizes: list[int], facts: list[str]) -> None:
    forms = [
        ["--cuda-graph-bs", *map(str, sizes)],
        ["--cuda-graph-bs-decode", *map(str, sizes)],
        ["--cuda-graph-config", json.dumps({"decode": {"bs": sizes}})],
    ]
    # The aliases are SGLang 0.5.19's (0.5.20 removed them): every form names that release.
    results = [outcome(["--engine-version", "0.5.19", *form, *facts]) for form in forms]
    assert results[0] == results[1] == results[2]


# --- idempotent resolve -------------------------------------------------------------------


def _feed_back(plan: Plan) -> str:
    """The resolved config as a --cuda-graph-config document (unset keys left out; an empty
    size list, which SGLang derives from a max_bs below every grid size, is left out too)."""
    return json.dumps({phase: {k: v for k, v in values.items() if v is not None and v != []}
                       for phase, values in plan.config.items()})


@SETTINGS
@given(config_args(), fact_args())
def test_resolving_the_resolved_config_again_changes_nothing(cfg: list[str],
                                                             facts: list[str]) -> None:
    argv = cfg + facts
    try:
        plan = resolve_args(argv)
    except CgConfigError:
        assume(False)
        return
    again = resolve_args(["--cuda-graph-config", _feed_back(plan), *facts])
    assert again.config == plan.config
    assert again.capture == plan.capture


@SETTINGS
@given(config_args(), fact_args())
def test_resolving_the_resolved_config_again_without_rules(cfg: list[str],
                                                           facts: list[str]) -> None:
    try:  # SGLang's own start-up check refuses some lines (a decode list the alignment empties)
        plan = resolve_plain(cfg + facts)
    except CgConfigError:
        assume(False)
        return
    assume(plan.config["prefill"]["max_bs"] is None
           or plan.config["prefill"]["max_bs"] in (plan.config["prefill"]["bs"] or []))
    again = resolve_plain(["--cuda-graph-config", _feed_back(plan), *facts])
    assert again.config == plan.config
    assert again.capture == plan.capture


# --- locks are never overridden by policies -----------------------------------------------


@st.composite
def locked_backends(draw: st.DrawFn) -> tuple[dict[str, str], list[str]]:
    locked: dict[str, str] = {}
    argv: list[str] = []
    doc: dict[str, Any] = {}  # one --cuda-graph-config: SGLang keeps only the last one given
    for phase in ("decode", "prefill"):
        if draw(st.booleans()):
            value = draw(backend)
            locked[f"{phase}.backend"] = value
            if draw(st.booleans()):
                argv += [f"--cuda-graph-backend-{phase}", value]
            else:
                doc[phase] = {"backend": value}
    if doc:
        argv += ["--cuda-graph-config", json.dumps(doc)]
    argv += ["--disaggregation-mode", draw(st.sampled_from(["null", "prefill", "decode"]))]
    return locked, argv


@SETTINGS
@given(locked_backends(), fact_args())
def test_policies_never_change_a_locked_backend(case, facts: list[str]) -> None:
    locked, argv = case
    # the random facts may carry their own --disaggregation-mode; ours comes last and wins
    full = facts + argv
    try:
        plan = resolve_args(full)
    except CgConfigError:
        assume(False)
        return
    for key in locked:
        assert key in plan.locked
    overridden = set()
    for decision in plan.decisions:
        touched = {c.key for c in decision.changes} & set(locked)
        if not touched:
            continue
        if decision.kind == "policy":
            assert decision.outcome == "skipped-locked", decision.to_dict()
        if decision.outcome == "overrode-lock":
            assert decision.kind == "constraint"
            overridden |= touched
    for key, value in locked.items():
        phase, name = key.split(".")
        if key not in overridden:
            assert plan.config[phase][name] == value


def test_idempotent_with_prefill_max_bs_off_the_grid() -> None:
    plan = resolve_args(["--chunked-prefill-size", "1000"])
    assert plan.config["prefill"]["max_bs"] == 1000
    assert plan.config["prefill"]["bs"][-1] == 960
    again = resolve_args(["--cuda-graph-config", _feed_back(plan), "--chunked-prefill-size",
                          "1000"])
    assert again.config == plan.config
