"""Fuzzing (hypothesis) over argv tokens, JSON/YAML documents and rule packs: every input ends
in a plan or in one ``InputError`` line (exit 2), never a traceback or a hang.

CI runs ~2,000 examples in all (the per-test counts below). ``CGCONFIG_FUZZ_EXAMPLES=N`` runs N
examples per test instead, for the long run recorded in the README.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cgconfig import resolve_args, resolve_dict
from cgconfig.cli.main import main
from cgconfig.docio import load_json_text, load_yaml_text
from cgconfig.errors import CgConfigError, InputError
from cgconfig.fields.flags import known_spellings
from cgconfig.provenance import Layer
from cgconfig.sources.documents import leaves_from_config_arg, leaves_from_mapping
from tests.bounds import HANG_S

LONG_RUN = int(os.environ.get("CGCONFIG_FUZZ_EXAMPLES", "0"))
#: CPU seconds one example may use before it counts as a hang (a loop, a growing list), and
#: wall seconds before a blocked read counts as one; CPU time does not flake on a busy machine.
HANG_CPU_S = 5.0
HANG_WALL_S = float(HANG_S)  # a safety net against a hang only: the bound is CPU time


class Bounded:
    """Fails when the block inside runs longer than the hang bounds."""

    def __enter__(self) -> Bounded:
        self.cpu, self.wall = time.process_time(), time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        cpu, wall = time.process_time() - self.cpu, time.monotonic() - self.wall
        assert cpu < HANG_CPU_S and wall < HANG_WALL_S, f"hang: {cpu:.1f} s CPU, {wall:.1f} s"


def fuzz_settings(ci_examples: int) -> Any:
    return settings(max_examples=LONG_RUN or ci_examples, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


@pytest.fixture(autouse=True, scope="module")
def _no_gpu_probe() -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CGCONFIG_NO_GPU_PROBE", "1")
        yield


# --- strategies ---------------------------------------------------------------------------

FLAGS = [*sorted(known_spellings()), "--dialect", "-cc", "--max-num-seqs",
         "--max-num-batched-tokens", "--speculative-config", "-cc.cudagraph_mode",
         "-cc.max_cudagraph_capture_size"]
nasty_numbers = st.sampled_from(["0", "-1", "1e11", "100000000000", str(2**63), "9" * 40,
                                 "inf", "nan", "-0", "1_0", "\u0668", "\uff16\uff14", "1.5",
                                 "200k", "1.5g", "true", "null", ""])
nasty_text = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\0"),
                     max_size=40)
json_scalar = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
               | st.floats(allow_nan=False, allow_infinity=False) | nasty_text)
json_value = st.recursive(json_scalar, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(nasty_text | st.sampled_from(
                              ["decode", "prefill", "max_bs", "bs", "backend", "options"]),
                              inner, max_size=4), max_leaves=20)
config_doc = st.fixed_dictionaries({}, optional={
    "decode": st.dictionaries(st.sampled_from(["backend", "max_bs", "bs", "bogus"]), json_value,
                              max_size=3),
    "prefill": st.dictionaries(st.sampled_from(["backend", "max_bs", "bs", "max_seq_len"]),
                               json_value, max_size=3),
})
token = (st.sampled_from(FLAGS) | nasty_numbers | nasty_text
         | json_value.map(lambda v: json.dumps(v)) | st.sampled_from(
             ["vllm", "trtllm", "sglang", "full", "breakable", "disabled", "cpu", "json",
              "@/dev/zero", "/dev/null", "resolve", "explain"]))


def run_main(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with Bounded(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


# --- argv ---------------------------------------------------------------------------------

@fuzz_settings(800)
@given(st.sampled_from([["resolve"], ["explain"], ["resolve", "-o", "json"], ["__complete"],
                        ["__complete", "2", "resolve"], ["resolve", "--dialect", "vllm"]]),
       st.lists(token, max_size=8))
def test_fuzz_argv_ends_in_a_plan_or_one_error_line(command: list[str],
                                                    tokens: list[str]) -> None:
    code, err = run_main([*command, *tokens])
    assert code in (0, 2, 3, 10), (code, err)
    if code == 2 and command[0] != "__complete":  # completion answers shells silently
        errors = [line for line in err.splitlines() if line.startswith("cgconfig: error:")]
        assert len(errors) == 1, err


# --- documents ----------------------------------------------------------------------------

@fuzz_settings(400)
@given(st.one_of(config_doc, json_value))
def test_fuzz_config_documents(doc: Any) -> None:
    for call in (lambda: resolve_dict(doc),
                 lambda: leaves_from_config_arg(json.dumps(doc)),
                 lambda: resolve_dict(None, facts=doc if isinstance(doc, dict) else {"x": doc})):
        with Bounded(), contextlib.suppress(CgConfigError):
            call()


@fuzz_settings(400)
@given(st.one_of(nasty_text, st.text(max_size=200),
                 json_value.map(lambda v: json.dumps(v, indent=1))))
def test_fuzz_yaml_and_json_text(text: str) -> None:
    for parse in (lambda: load_yaml_text(text, "doc.yaml")[0],
                  lambda: load_json_text(text, "doc.json")):
        try:
            data = parse()
        except InputError as error:
            assert "\n" not in str(error)
            continue
        with contextlib.suppress(InputError):
            leaves_from_mapping(data, "doc", Layer.CONFIG)


# --- rule packs ---------------------------------------------------------------------------

PATHS = ["facts.tp_size", "facts.model_arch", "facts.device", "derived.speculative",
         "config.decode.backend", "config.decode.max_bs", "config.decode.bs",
         "derived.attention_backends", "facts.gpu_memory_gib", "options.disable_padding",
         "facts.nope"]
KEYS = ["decode.backend", "decode.max_bs", "decode.bs", "prefill.backend", "prefill.max_bs",
        "options.torch_compile_max_bs", "options.disable_padding", "nope.key"]
atom = st.builds(lambda op, path, value: {op: {"path": path, "value": value}},
                 st.sampled_from(["eq", "ne", "gt", "ge", "lt", "le"]), st.sampled_from(PATHS),
                 json_scalar) | st.builds(
    lambda op, path, ref: {op: {"path": path, "ref": ref}},
    st.sampled_from(["eq", "lt", "ge"]), st.sampled_from(PATHS), st.sampled_from(PATHS))
def _compound(inner: Any) -> Any:
    """all/any/not around smaller conditions."""
    some = st.lists(inner, min_size=1, max_size=3)
    return (some.map(lambda xs: {"all": xs}) | some.map(lambda xs: {"any": xs})
            | inner.map(lambda x: {"not": x}))


condition = st.recursive(atom, _compound, max_leaves=6)
action = st.one_of(
    st.builds(lambda k, v: {"set": {"key": k, "value": v}}, st.sampled_from(KEYS), json_value),
    st.builds(lambda k, m: {"clamp": {"key": k, "max": m}}, st.sampled_from(KEYS),
              st.integers(-5, 2**40)),
    st.builds(lambda k, r: {"clamp": {"key": k, "max_ref": r}}, st.sampled_from(KEYS),
              st.sampled_from(PATHS)),
    st.builds(lambda p, m: {"align": {"phase": p, "multiple": m}},
              st.sampled_from(["decode", "prefill"]), st.integers(-1, 2**20)),
    st.just({"refuse": True}), st.just({"warn": True}))
rule_pack = st.builds(
    lambda when, then, title: {"pack": "fuzz", "title": title, "rules": [{
        "id": "fuzz.rule", "title": title, "kind": "policy", "when": when, "then": then,
        "reason": "r {facts.tp_size}", "source": "s",
        "examples": [{"args": [], "fires": True}, {"args": [], "fires": False}]}]},
    condition, st.lists(action, min_size=1, max_size=3), nasty_text)


@fuzz_settings(400)
@given(rule_pack, st.sampled_from([[], ["--tp-size", "8"], ["--device", "cpu"],
                                   ["--disable-cuda-graph-padding"]]))
def test_fuzz_rule_packs(tmp_path_factory: pytest.TempPathFactory, pack: dict[str, Any],
                         argv: list[str]) -> None:
    path = Path(tmp_path_factory.getbasetemp()) / "fuzz-pack.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    with Bounded():
        try:
            resolve_args([*argv, "--rules", str(path)])
        except CgConfigError as error:
            assert "\n" not in str(error)
