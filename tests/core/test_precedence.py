"""Precedence of the input layers (README "Inputs and precedence"): defaults <
--disable-cuda-graph < per-phase off-switches < convenience flags (and deprecated aliases) <
--cuda-graph-config.

Rules are switched off (``use_rules=False``) so only the layering is under test.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from cgconfig.api import request_from_argv
from cgconfig.api import resolve_request as resolve
from cgconfig.cli.main import main
from cgconfig.plan import Plan

#: SGLang's deprecated aliases (--cuda-graph-max-bs, --disable-piecewise-cuda-graph...) are
#: accepted only by the releases before 0.5.20: lines with them are answered as 0.5.16, a
#: release with breakable prefill by default (0.5.14's default is tc_piecewise).
ALIAS_RELEASE = ["--engine-version", "sglang==0.5.16"]


def with_alias_release(argv: list[str]) -> list[str]:
    """``argv``, answered as a release that accepts its deprecated aliases when it has one."""
    from cgconfig.fields.flags import flag_index

    index = flag_index()
    aliased = any(index.get(t.split("=", 1)[0]) is not None
                  and index[t.split("=", 1)[0]].replacement for t in argv)
    return [*ALIAS_RELEASE, *argv] if aliased else argv


def resolve_plain(argv: list[str]) -> Plan:
    """Resolve argv with the rule engine off: only inputs, defaults and sizes."""
    request = request_from_argv(with_alias_release(argv))
    request.use_rules = False
    return resolve(request)


def value(plan: Plan, key: str):
    phase, name = key.split(".")
    return plan.config[phase][name]


def chain(plan: Plan, key: str) -> list[tuple[str, object]]:
    return [(e.source, e.value) for e in plan.provenance[key]]


# Every convenience-layer flag (incl. deprecated aliases): argv, key written, value written.
CONVENIENCE = [
    (["--cuda-graph-backend-decode", "breakable"], "decode.backend", "breakable"),
    (["--cuda-graph-backend-prefill", "full"], "prefill.backend", "full"),
    (["--cuda-graph-max-bs-decode", "48"], "decode.max_bs", 48),
    (["--cuda-graph-max-bs-prefill", "1024"], "prefill.max_bs", 1024),
    (["--cuda-graph-bs-decode", "1", "2", "8"], "decode.bs", [1, 2, 8]),
    (["--cuda-graph-bs-prefill", "16", "64"], "prefill.bs", [16, 64]),
    (["--cuda-graph-max-seq-len-prefill", "4096"], "prefill.max_seq_len", 4096),
    (["--cuda-graph-prefill-max-context", "200k"], "prefill.max_context_size", 200_000),
    (["--cuda-graph-max-bs", "48"], "decode.max_bs", 48),
    (["--cuda-graph-bs", "1", "2", "8"], "decode.bs", [1, 2, 8]),
    (["--enable-breakable-cuda-graph"], "prefill.backend", "breakable"),
    (["--disable-piecewise-cuda-graph"], "prefill.backend", "disabled"),
    (["--piecewise-cuda-graph-tokens", "16", "64"], "prefill.bs", [16, 64]),
    (["--piecewise-cuda-graph-max-tokens", "1024"], "prefill.max_bs", 1024),
]
CONV_IDS = [c[0][0] for c in CONVENIENCE]

# A --cuda-graph-config value for each key above that differs from the convenience value.
CONFIG_VALUE = {
    "decode.backend": "disabled",
    "prefill.backend": "breakable",
    "decode.max_bs": 96,
    "prefill.max_bs": 2048,
    "decode.bs": [4, 32],
    "prefill.bs": [128, 256],
    "prefill.max_seq_len": 8192,
    "prefill.max_context_size": 65536,
}


def config_doc(key: str, val: object) -> dict:
    phase, name = key.split(".")
    return {phase: {name: val}}


# How --cuda-graph-config is given: inline JSON, @file, a .json path, a .yaml path.
def _as_json(doc: dict, tmp_path: Path) -> str:
    return json.dumps(doc)


def _as_at_file(doc: dict, tmp_path: Path) -> str:
    path = tmp_path / "cfg.txt"
    path.write_text(json.dumps(doc))
    return "@" + str(path)


def _as_json_path(doc: dict, tmp_path: Path) -> str:
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _as_yaml_path(doc: dict, tmp_path: Path) -> str:
    lines = []
    for phase, body in doc.items():
        lines.append(f"{phase}:")
        for k, v in body.items():
            lines.append(f"  {k}: {json.dumps(v)}")
    path = tmp_path / "cfg.yaml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


CONFIG_FORMS = {
    "json": _as_json,
    "at-file": _as_at_file,
    "json-path": _as_json_path,
    "yaml-path": _as_yaml_path,
}


# --- defaults -----------------------------------------------------------------------------


def test_defaults_without_input_are_full_decode_and_breakable_prefill() -> None:
    plan = resolve_plain([])
    assert value(plan, "decode.backend") == "full"
    assert value(plan, "prefill.backend") == "breakable"
    assert plan.locked == []
    assert chain(plan, "decode.backend") == [("default", "full")]


# --- default < legacy ---------------------------------------------------------------------


def test_legacy_disable_cuda_graph_beats_defaults_for_both_phases() -> None:
    plan = resolve_plain(["--disable-cuda-graph"])
    assert value(plan, "decode.backend") == "disabled"
    assert value(plan, "prefill.backend") == "disabled"
    assert chain(plan, "decode.backend") == [("default", "full"),
                                             ("--disable-cuda-graph", "disabled")]
    assert chain(plan, "prefill.backend") == [("default", "breakable"),
                                              ("--disable-cuda-graph", "disabled")]
    assert plan.capture["decode"]["sizes"] == []
    assert plan.capture["prefill"]["sizes"] == []


# --- default < off-switch -----------------------------------------------------------------


@pytest.mark.parametrize(("flag", "key", "other"), [
    ("--disable-decode-cuda-graph", "decode.backend", "prefill.backend"),
    ("--disable-prefill-cuda-graph", "prefill.backend", "decode.backend"),
])
def test_off_switch_beats_defaults_for_its_phase_only(flag: str, key: str, other: str) -> None:
    plan = resolve_plain([flag])
    assert value(plan, key) == "disabled"
    assert value(plan, other) != "disabled"
    assert chain(plan, key)[-1] == (flag, "disabled")
    assert plan.locked == [key]


# --- default < convenience ----------------------------------------------------------------


@pytest.mark.parametrize(("argv", "key", "val"), CONVENIENCE, ids=CONV_IDS)
def test_convenience_flag_beats_defaults(argv: list[str], key: str, val: object) -> None:
    plan = resolve_plain(argv)
    assert value(plan, key) == val
    assert (argv[0], val) in chain(plan, key)
    assert key in plan.locked


# --- default < config ---------------------------------------------------------------------


@pytest.mark.parametrize("form", sorted(CONFIG_FORMS))
def test_config_document_beats_defaults(form: str, tmp_path: Path) -> None:
    doc = {"decode": {"backend": "breakable", "max_bs": 24}, "prefill": {"max_seq_len": 512}}
    plan = resolve_plain(["--cuda-graph-config", CONFIG_FORMS[form](doc, tmp_path)])
    assert value(plan, "decode.backend") == "breakable"
    assert value(plan, "decode.max_bs") == 24
    assert value(plan, "prefill.max_seq_len") == 512
    assert set(plan.locked) == {"decode.backend", "decode.max_bs", "prefill.max_seq_len"}


# --- legacy < off-switch ------------------------------------------------------------------
# Both write "disabled": the higher layer is the last entry of the chain and shadows the lower.


@pytest.mark.parametrize("order", ["legacy-first", "off-switch-first"])
def test_off_switch_shadows_legacy_in_provenance(order: str) -> None:
    argv = ["--disable-cuda-graph", "--disable-prefill-cuda-graph"]
    if order == "off-switch-first":
        argv.reverse()
    plan = resolve_plain(argv)
    assert value(plan, "prefill.backend") == "disabled"
    assert [s for s, _ in chain(plan, "prefill.backend")] == [
        "default", "--disable-cuda-graph", "--disable-prefill-cuda-graph"]


# --- legacy < convenience -----------------------------------------------------------------


@pytest.mark.parametrize("order", ["legacy-first", "convenience-first"])
def test_convenience_backend_beats_legacy_disable(order: str) -> None:
    argv = ["--disable-cuda-graph", "--cuda-graph-backend-decode", "full"]
    if order == "convenience-first":
        argv = argv[1:] + argv[:1]
    plan = resolve_plain(argv)
    # As SGLang's parse_cuda_graph_config: --disable-cuda-graph --cuda-graph-backend-decode full
    # → decode full (locked), prefill disabled (locked).
    assert value(plan, "decode.backend") == "full"
    assert value(plan, "prefill.backend") == "disabled"
    assert {"decode.backend", "prefill.backend"} <= set(plan.locked)


@pytest.mark.parametrize("order", ["legacy-first", "alias-first"])
def test_deprecated_breakable_alias_beats_legacy_disable(order: str) -> None:
    argv = ["--disable-cuda-graph", "--enable-breakable-cuda-graph"]
    if order == "alias-first":
        argv.reverse()
    plan = resolve_plain(argv)
    assert value(plan, "prefill.backend") == "breakable"
    assert value(plan, "decode.backend") == "disabled"


# --- legacy < config ----------------------------------------------------------------------


@pytest.mark.parametrize("form", sorted(CONFIG_FORMS))
def test_config_beats_legacy_disable(form: str, tmp_path: Path) -> None:
    doc = {"decode": {"backend": "full"}}
    spec = CONFIG_FORMS[form](doc, tmp_path)
    for argv in (["--disable-cuda-graph", "--cuda-graph-config", spec],
                 ["--cuda-graph-config", spec, "--disable-cuda-graph"]):
        plan = resolve_plain(argv)
        assert value(plan, "decode.backend") == "full"
        assert value(plan, "prefill.backend") == "disabled"


# --- off-switch < convenience -------------------------------------------------------------


@pytest.mark.parametrize(("off", "conv", "key", "expected"), [
    ("--disable-prefill-cuda-graph", ["--cuda-graph-backend-prefill", "breakable"],
     "prefill.backend", "breakable"),
    ("--disable-prefill-cuda-graph", ["--enable-breakable-cuda-graph"], "prefill.backend",
     "breakable"),
    ("--disable-prefill-cuda-graph", ["--cuda-graph-backend-prefill", "full"], "prefill.backend",
     "full"),
    ("--disable-decode-cuda-graph", ["--cuda-graph-backend-decode", "breakable"],
     "decode.backend", "breakable"),
    ("--disable-decode-cuda-graph", ["--cuda-graph-backend-decode", "full"], "decode.backend",
     "full"),
])
@pytest.mark.parametrize("order", ["off-first", "convenience-first"])
def test_convenience_beats_off_switch(off: str, conv: list[str], key: str, expected: str,
                                      order: str) -> None:
    argv = [off, *conv] if order == "off-first" else [*conv, off]
    plan = resolve_plain(argv)
    assert value(plan, key) == expected
    sources = [s for s, _ in chain(plan, key)]
    assert sources == ["default", off, conv[0]]


# --- off-switch < config ------------------------------------------------------------------


@pytest.mark.parametrize("form", sorted(CONFIG_FORMS))
@pytest.mark.parametrize(("off", "phase"), [("--disable-decode-cuda-graph", "decode"),
                                            ("--disable-prefill-cuda-graph", "prefill")])
def test_config_beats_off_switch(form: str, off: str, phase: str, tmp_path: Path) -> None:
    spec = CONFIG_FORMS[form]({phase: {"backend": "breakable"}}, tmp_path)
    for argv in ([off, "--cuda-graph-config", spec], ["--cuda-graph-config", spec, off]):
        plan = resolve_plain(argv)
        assert value(plan, f"{phase}.backend") == "breakable"


# --- convenience < config -----------------------------------------------------------------


@pytest.mark.parametrize(("argv", "key", "val"), CONVENIENCE, ids=CONV_IDS)
def test_config_json_beats_every_convenience_flag(argv: list[str], key: str, val: object) -> None:
    winner = CONFIG_VALUE[key]
    if winner == val:
        winner = "disabled" if val == "breakable" else "breakable"
    doc = json.dumps(config_doc(key, winner))
    for full in ([*argv, "--cuda-graph-config", doc], ["--cuda-graph-config", doc, *argv]):
        plan = resolve_plain(full)
        assert value(plan, key) == winner
        sources = [s for s, _ in chain(plan, key)]
        assert sources.index(argv[0]) < sources.index("--cuda-graph-config")


@pytest.mark.parametrize("form", sorted(CONFIG_FORMS))
def test_config_file_forms_beat_convenience_flags(form: str, tmp_path: Path) -> None:
    doc = {"decode": {"max_bs": 96}, "prefill": {"backend": "disabled"}}
    spec = CONFIG_FORMS[form](doc, tmp_path)
    plan = resolve_plain(["--cuda-graph-max-bs-decode", "48", "--cuda-graph-config", spec,
                          "--cuda-graph-backend-prefill", "full"])
    assert value(plan, "decode.max_bs") == 96
    assert value(plan, "prefill.backend") == "disabled"
    shadowed = plan.provenance["decode.max_bs"]
    assert [(e.source, e.value) for e in shadowed][:2] == [("default", None),
                                                           ("--cuda-graph-max-bs-decode", 48)]
    assert shadowed[2].value == 96 and shadowed[2].layer == "config"


def test_json_wins_over_convenience_backend() -> None:
    # As SGLang's parse_cuda_graph_config: --cuda-graph-backend-prefill X with JSON
    # {"prefill":{"backend":"disabled"}}
    plan = resolve_plain(["--cuda-graph-backend-prefill", "full",
                          "--cuda-graph-config", '{"prefill":{"backend":"disabled"}}'])
    assert value(plan, "prefill.backend") == "disabled"


# --- all layers at once; argv order never matters across layers ---------------------------

GROUPS = [
    ["--disable-cuda-graph"],
    ["--disable-prefill-cuda-graph"],
    ["--cuda-graph-backend-prefill", "full", "--cuda-graph-max-bs-decode", "48"],
    ["--cuda-graph-config", '{"decode":{"max_bs":96}}'],
]


def test_all_layers_each_key_takes_its_highest_layer() -> None:
    plan = resolve_plain([t for g in GROUPS for t in g])
    assert value(plan, "decode.backend") == "disabled"  # only legacy set it
    assert value(plan, "prefill.backend") == "full"  # convenience over off-switch and legacy
    assert value(plan, "decode.max_bs") == 96  # config over convenience
    assert [s for s, _ in chain(plan, "prefill.backend")] == [
        "default", "--disable-cuda-graph", "--disable-prefill-cuda-graph",
        "--cuda-graph-backend-prefill"]


@pytest.mark.parametrize("perm", list(itertools.permutations(range(len(GROUPS)))))
def test_argv_order_across_layers_does_not_change_the_plan(perm: tuple[int, ...]) -> None:
    reference = resolve_plain([t for g in GROUPS for t in g])
    plan = resolve_plain([t for i in perm for t in GROUPS[i]])
    assert plan.config == reference.config
    assert plan.capture == reference.capture
    assert plan.locked == reference.locked


# --- same layer: last one wins ------------------------------------------------------------


def test_same_layer_disable_piecewise_then_enable_breakable_gives_breakable() -> None:
    plan = resolve_plain(["--disable-piecewise-cuda-graph", "--enable-breakable-cuda-graph"])
    assert value(plan, "prefill.backend") == "breakable"


def test_same_layer_enable_breakable_then_disable_piecewise_gives_disabled() -> None:
    plan = resolve_plain(["--enable-breakable-cuda-graph", "--disable-piecewise-cuda-graph"])
    assert value(plan, "prefill.backend") == "disabled"


@pytest.mark.parametrize(("argv", "expected"), [
    (["--cuda-graph-max-bs", "64", "--cuda-graph-max-bs-decode", "32"], 32),
    (["--cuda-graph-max-bs-decode", "32", "--cuda-graph-max-bs", "64"], 64),
    (["--cuda-graph-max-bs-decode", "32", "--cuda-graph-max-bs-decode", "16"], 16),
])
def test_same_layer_alias_and_canonical_flag_last_wins(argv: list[str], expected: int) -> None:
    assert value(resolve_plain(argv), "decode.max_bs") == expected


def test_two_config_documents_last_one_wins() -> None:
    plan = resolve_plain(["--cuda-graph-config", '{"decode":{"max_bs":16}}',
                          "--cuda-graph-config", '{"decode":{"max_bs":24}}'])
    assert value(plan, "decode.max_bs") == 24


# --- shadowed values: provenance and explain ----------------------------------------------


def test_shadowed_value_is_kept_in_provenance() -> None:
    plan = resolve_plain(["--cuda-graph-max-bs-decode", "48",
                          "--cuda-graph-config", '{"decode":{"max_bs":96}}'])
    entries = [e.to_dict() for e in plan.provenance["decode.max_bs"]]
    assert entries[0] == {"source": "default", "layer": "default", "value": None}
    assert entries[1] == {"source": "--cuda-graph-max-bs-decode", "layer": "convenience",
                          "value": 48}
    assert entries[2]["source"] == "--cuda-graph-config"
    assert entries[2]["layer"] == "config"
    assert entries[2]["value"] == 96
    assert entries[2]["at"] == "/decode/max_bs"


def test_provenance_layers_for_a_four_layer_chain() -> None:
    plan = resolve_plain(["--cuda-graph-config", '{"prefill":{"backend":"breakable"}}',
                          "--cuda-graph-backend-prefill", "full", "--disable-prefill-cuda-graph",
                          "--disable-cuda-graph"])
    layers = [e.layer for e in plan.provenance["prefill.backend"]]
    assert layers == ["default", "legacy", "off-switch", "convenience", "config"]


def test_explain_key_shows_shadowed_value_overridden_by_winner(capsys) -> None:
    rc = main(["explain", "decode.max_bs", "--cuda-graph-max-bs-decode", "48",
               "--cuda-graph-config", '{"decode":{"max_bs":96}}'])
    out = capsys.readouterr().out
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].startswith("decode.max_bs = 96")
    shadow = [ln for ln in lines if ln.lstrip().startswith("; 48")]
    assert len(shadow) == 1
    assert "--cuda-graph-max-bs-decode" in shadow[0]
    assert "overridden by --cuda-graph-config" in shadow[0]
    winner = [ln for ln in lines if ln.lstrip().startswith("= 96")]
    assert winner and "--cuda-graph-config" in winner[0]


def test_explain_shows_every_shadowed_layer_in_order(capsys) -> None:
    rc = main(["explain", "prefill.backend", "--disable-cuda-graph",
               "--disable-prefill-cuda-graph", "--cuda-graph-backend-prefill", "full",
               "--cuda-graph-config", '{"prefill":{"backend":"breakable"}}'])
    out = capsys.readouterr().out
    assert rc == 0
    shadowed = [ln.strip() for ln in out.splitlines() if ln.lstrip().startswith(";")]
    assert len(shadowed) == 4
    assert shadowed[0].endswith("overridden by --cuda-graph-config")
    assert "--cuda-graph-backend-prefill" in shadowed[0]
    assert shadowed[1].endswith("overridden by --cuda-graph-backend-prefill")
    assert shadowed[2].endswith("overridden by --disable-prefill-cuda-graph")
    assert shadowed[3].startswith('; "breakable"')
    assert shadowed[3].endswith("overridden by --disable-cuda-graph")


# --- deprecation notes --------------------------------------------------------------------

DEPRECATED = [
    (["--cuda-graph-max-bs", "8"], "--cuda-graph-max-bs", "--cuda-graph-max-bs-decode"),
    (["--cuda-graph-bs", "1", "2"], "--cuda-graph-bs", "--cuda-graph-bs-decode"),
    (["--enable-breakable-cuda-graph"], "--enable-breakable-cuda-graph",
     "--cuda-graph-backend-prefill breakable"),
    (["--disable-piecewise-cuda-graph"], "--disable-piecewise-cuda-graph",
     "--cuda-graph-backend-prefill disabled"),
    (["--piecewise-cuda-graph-tokens", "16", "32"], "--piecewise-cuda-graph-tokens",
     "--cuda-graph-bs-prefill"),
    (["--piecewise-cuda-graph-max-tokens", "512"], "--piecewise-cuda-graph-max-tokens",
     "--cuda-graph-max-bs-prefill"),
    (["--disable-cuda-graph"], "--disable-cuda-graph",
     "--cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled"),
]


@pytest.mark.parametrize(("argv", "flag", "replacement"), DEPRECATED,
                         ids=[d[1] for d in DEPRECATED])
def test_deprecated_alias_prints_exact_note_on_stderr(argv: list[str], flag: str,
                                                      replacement: str, capsys) -> None:
    rc = main(["resolve", *with_alias_release(argv), "-o", "json"])
    captured = capsys.readouterr()
    assert rc == 0
    expected = (f"cgconfig: deprecated: '{flag}' is deprecated and will be removed in a future "
                f"release. Use '{replacement}' instead.")
    assert expected in captured.err.splitlines()
    assert json.loads(captured.out)["deprecations"] == [expected.split("deprecated: ", 1)[1]]


@pytest.mark.parametrize("argv", [
    ["--cuda-graph-max-bs-decode", "8"], ["--cuda-graph-bs-decode", "1", "2"],
    ["--cuda-graph-backend-prefill", "breakable"], ["--disable-prefill-cuda-graph"],
    ["--disable-decode-cuda-graph"], ["--cuda-graph-prefill-max-context", "200k"],
])
def test_canonical_flags_print_no_deprecation_note(argv: list[str], capsys) -> None:
    rc = main(["resolve", *with_alias_release(argv), "-o", "json"])
    captured = capsys.readouterr()
    assert rc == 0
    assert "deprecated" not in captured.err
    assert json.loads(captured.out)["deprecations"] == []


def test_human_readable_context_size_variants() -> None:
    assert value(resolve_plain(["--cuda-graph-prefill-max-context", "200k"]),
                 "prefill.max_context_size") == 200_000
    assert value(resolve_plain(["--cuda-graph-prefill-max-context", "200000"]),
                 "prefill.max_context_size") == 200_000
    assert value(resolve_plain(["--cuda-graph-prefill-max-context", "1.5m"]),
                 "prefill.max_context_size") == 1_500_000


# --- deployment facts: flags win over a --deployment file ---------------------------------


@pytest.mark.parametrize("order", ["file-first", "flag-first"])
def test_fact_flag_beats_deployment_file(order: str, tmp_path: Path) -> None:
    path = tmp_path / "deploy.yaml"
    path.write_text("tp-size: 2\ngpu_memory_gib: 80\n")
    argv = ["--deployment", str(path), "--tp-size", "4"]
    if order == "flag-first":
        argv = argv[2:] + argv[:2]
    plan = resolve_plain(argv)
    assert plan.facts["tp_size"] == 4
    assert plan.fact_sources["tp_size"] == "--tp-size"
    assert plan.facts["gpu_memory_gib"] == 80
    assert plan.fact_sources["gpu_memory_gib"] == f"{path}:2"
    assert plan.config["decode"]["max_bs"] == 512  # 60–160 GiB tier, tp ≥ 4


def test_deployment_json_file(tmp_path: Path) -> None:
    path = tmp_path / "deploy.json"
    path.write_text(json.dumps({"tp_size": 8, "disaggregation_mode": "decode"}))
    plan = resolve_plain(["--deployment", str(path)])
    assert plan.facts["tp_size"] == 8
    assert plan.facts["disaggregation_mode"] == "decode"
    assert plan.locked == []
