"""Fuzzing (hypothesis) of the Python API and the runtime: every call ends in a result or in the
documented exception (``InputError`` for the API, ``ValueError`` for the runtime), never
another exception, a hang or a memory blow-up. ``CGCONFIG_FUZZ_EXAMPLES=N`` runs N examples per
test (the campaign's long run); CI runs a few hundred in all."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cgconfig import resolve_args
from cgconfig.docio import load_json_text, load_yaml_text
from cgconfig.errors import CgConfigError, InputError
from tests.hostile.test_fuzz import Bounded
from tests.hostile.test_fuzz import fuzz_settings as fuzz


@pytest.fixture(autouse=True, scope="module")
def _no_gpu_probe() -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CGCONFIG_NO_GPU_PROBE", "1")
        patch.setenv("CGCONFIG_NO_CACHE", "1")
        yield


HOSTILE = ["\x1b[2J", "\ud800", "٨", "１", "1_0", "010", "1:00", "inf", "nan", "1e400", "-0",
           "2" * 40, "", " ", "~nosuchuser/x", "--chec", "--stri", "-ojson", "--dialect=",
           "python", "-X", "dev", "-m", "sglang.launch_server", "vllm", "serve", "env", "-i",
           "-u", "docker", "run", "-e", "A=1", "SGLANG_MEMORY_SAVER_CUDA_GRAPH=1",
           "--cuda-graph-config", '{"decode": {"max_bs": 8}}', "--tp-size", "2",
           "--gpu-memory-gib", "0", "--cuda-graph-max-bs-decode", "--enable-memory-saver",
           "!!int", "\n", "\x00x"]
TOKENS = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
                    st.sampled_from(HOSTILE))
DOCS = st.recursive(SCALARS, lambda kids: st.one_of(
    st.lists(kids, max_size=4),
    st.dictionaries(st.one_of(st.text(max_size=8), st.sampled_from(
        ["capture", "config", "decode", "prefill", "sizes", "backend", "compile_sizes",
         "schema_version", "options", "phases"])), kids, max_size=4)), max_leaves=12)


@fuzz(120)
@given(argv=st.lists(TOKENS, max_size=10),
       environ=st.one_of(st.none(), st.dictionaries(st.sampled_from(
           ["SGLANG_MEMORY_SAVER_CUDA_GRAPH", "HF_HOME", "A"]), st.sampled_from(HOSTILE),
           max_size=3), st.sampled_from([{1, 2}, 3.5, {"A": 1}, {1: "x"}])))
def test_resolve_args_raises_only_the_input_error_family(argv: list[str], environ: Any) -> None:
    with Bounded():
        try:
            plan = resolve_args(argv, environ=environ)
        except CgConfigError:
            return
        json.loads(plan.to_json())


@fuzz(60)
@given(indent=st.one_of(st.none(), st.integers(-5, 10**9), st.text(max_size=3),
                        st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)))
def test_to_json_indent(indent: Any) -> None:
    plan = resolve_args([])
    with Bounded(), contextlib.suppress(InputError):
        json.loads(plan.to_json(indent=indent))


@fuzz(120)
@given(doc=DOCS)
def test_histogram_from_document(doc: Any) -> None:
    from cgconfig.tune.histogram import from_document

    with Bounded(), contextlib.suppress(InputError):
        from_document(doc, "doc")


@fuzz(120)
@given(text=st.one_of(st.text(max_size=40), st.sampled_from(
    ["  !!int", "a: !!float", "a: 010", "a: 1_0", "[!!bool]", "a: !!timestamp x", "{a: !!int}"])))
def test_documents_are_read_or_refused(text: str) -> None:
    with Bounded():
        for load in (load_yaml_text, load_json_text):
            with contextlib.suppress(InputError):
                load(text, "doc")


@fuzz(150)
@given(doc=DOCS, phase=st.sampled_from(["decode", "prefill", "x"]))
def test_phase_capture_raises_value_error_only(doc: Any, phase: str) -> None:
    from cgconfig.runtime import phase_capture

    plan = {"schema_version": 1, "capture": doc} if not isinstance(doc, dict) else doc
    with Bounded(), contextlib.suppress(ValueError, TypeError):  # TypeError: not a plan (documented)
        phase_capture(plan, phase)


@fuzz(150)
@given(axis=st.one_of(st.sampled_from(["tokens", "requests", "none"]), st.integers(-2, 5),
                      st.text(max_size=4)),
       policy=st.one_of(st.sampled_from(["keep", "copy", "fill_sentinel", "zero", "fill_once"]),
                        st.integers(0, 3)),
       # small shapes, or shapes past the element bound (never a real multi-GiB allocation)
       trailing=st.lists(st.one_of(st.integers(-2, 16), st.integers(2**34, 2**41)), max_size=3),
       pad=st.one_of(st.none(), st.integers(-2**80, 2**80), st.floats(), st.booleans()),
       dtype=st.sampled_from(["int64", "int32", "bool", "float32", "bfloat16", "uint8"]),
       dim=st.integers(-1, 3),
       rows=st.one_of(st.integers(-1, 64), st.integers(2**23, 2**41)),
       device=st.sampled_from(["cpu", "nope", "cuda:99x", ""]))
def test_static_buffers_raise_value_error_only(axis: Any, policy: Any, trailing: list[int],
                                               pad: Any, dtype: str, dim: int, rows: int,
                                               device: str) -> None:
    torch = pytest.importorskip("torch")
    from cgconfig.runtime import Slot, StaticBuffers

    with Bounded():
        try:
            slot = Slot("s", getattr(torch, dtype), trailing=tuple(trailing), axis=axis,
                        policy=policy, pad_value=pad, dim=dim)
            buffers = StaticBuffers([slot], max_tokens=rows, max_requests=4, device=device)
            assert buffers.nbytes >= 0
        except ValueError:
            pass
