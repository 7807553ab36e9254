"""A graph key is one declaration (``cgconfig/fields/config.py``): type, default, doc, SGLang
flag, bound and each other engine's emit mapping. Everything written from it is current, and a
key that lacks a bound or a mapping fails here, as does any key an emitter drops silently."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cgconfig import resolve_args
from cgconfig.emit import emit_plan
from cgconfig.emit_keys import copy_keys
from cgconfig.engines.vllm.emit import VLLM_INEXPRESSIBLE
from cgconfig.errors import InputError
from cgconfig.fields import generate
from cgconfig.fields.spec import EMIT_ENGINES, EngineKey, FieldSpec, NotExpressible
from cgconfig.fields.table import all_config_keys, spec
from cgconfig.limits import KEY_BOUNDS, check_size_value

KEYS = all_config_keys()


def test_everything_written_from_the_declarations_is_current() -> None:
    stale = [str(path) for path, text in generate.outputs().items()
             if path.read_text(encoding="utf-8") != text]
    assert not stale, f"regenerate: python -m cgconfig.fields.generate ({stale})"


def test_the_generator_writes_every_sglang_table() -> None:
    """The keys' flags are classified in the table of every supported SGLang release (a
    moved folder must not leave the generator classifying none)."""
    from cgconfig.line.table import table_path
    from cgconfig.line.versions import SUPPORTED

    written = {str(path) for path in generate.outputs()}
    assert {table_path("sglang", v) for v in SUPPORTED["sglang"]} <= written


def test_the_declarations_lack_nothing() -> None:
    assert generate.problems(generate.build_specs()) == []


def test_a_key_without_a_bound_or_a_mapping_is_named() -> None:
    bare = FieldSpec("decode.new_size", "int", None, optional=True, gt=0)
    assert generate.problems([bare]) == [
        "decode.new_size: no bound; add REQUESTS, TOKENS, CONTEXT (cgconfig.limits) or a "
        "Bound(limit, unit) to its declaration",
        "decode.new_size: 0 mappings for vllm; declare one EngineKey('vllm', SPELLING) or "
        "NotExpressible('vllm', TAG, WHY)",
        "decode.new_size: 0 mappings for trtllm; declare one EngineKey('trtllm', SPELLING) or "
        "NotExpressible('trtllm', TAG, WHY)"]


@pytest.mark.parametrize("key", [k for k in KEYS if spec(k).kind in ("int", "int_list", "float")])
def test_every_numeric_key_declares_a_bound(key: str) -> None:
    assert spec(key).bound is not None, (
        f"{key} has no bound: add one (REQUESTS, TOKENS, CONTEXT or a Bound) to its declaration")
    assert KEY_BOUNDS[key] == spec(key).bound


@pytest.mark.parametrize("key", [k for k in KEYS if spec(k).bound is not None])
def test_every_bound_refuses_ten_to_the_twenty_from_every_input(key: str) -> None:
    bound = spec(key).bound
    assert bound is not None
    huge = [10**20] if spec(key).kind == "int_list" else 10**20
    with pytest.raises(InputError, match="above the limit"):
        check_size_value(key, huge, key)
    group, name = key.split(".", 1)
    if group != "options":
        with pytest.raises(InputError, match="above the limit"):
            resolve_args(["--cuda-graph-config", json.dumps({group: {name: huge}})])
    flag = spec(key).flag
    if flag is not None:
        words = [str(v) for v in (huge if isinstance(huge, list) else [huge])]
        with pytest.raises(InputError, match="above the limit"):
            resolve_args([flag.flag, *words])
    check_size_value(key, [bound.limit] if isinstance(huge, list) else bound.limit, key)


@pytest.mark.parametrize("engine", EMIT_ENGINES)
@pytest.mark.parametrize("key", KEYS)
def test_every_key_declares_one_mapping_per_engine(key: str, engine: str) -> None:
    mappings = [m for m in spec(key).engines if m.engine == engine]
    assert len(mappings) == 1, (
        f"{key} declares {len(mappings)} mappings for {engine}: give it one EngineKey({engine!r}, "
        f"...) or NotExpressible({engine!r}, TAG, WHY)")
    assert all(m.engine in EMIT_ENGINES for m in spec(key).engines)


def test_every_option_has_the_flag_the_sglang_emitter_writes() -> None:
    assert all(spec(k).flag is not None for k in KEYS if k.startswith("options."))


def test_every_declared_vllm_tag_is_described() -> None:
    tags = {m.tag for k in KEYS if isinstance(m := spec(k).mapping("vllm"), NotExpressible)}
    assert tags <= set(VLLM_INEXPRESSIBLE)
    assert "prefill.max_seq_len" in VLLM_INEXPRESSIBLE["prefill-extra"]


#: Inputs a key needs before its value shows (torch.compile's size bound only matters with it).
_CONTEXT: dict[str, list[str]] = {"options.torch_compile_max_bs": ["--enable-torch-compile"]}
_BASE = ["--tp-size", "1", "--gpu-memory-gib", "80"]


def _other_value(field: FieldSpec, current: Any) -> Any:
    if field.kind == "bool":
        return not current
    if field.kind == "choice":
        return next(c for c in field.choices or () if c != current)
    if field.kind == "int_list":
        return [1, 2, 8] if current != [1, 2, 8] else [1, 2, 16]
    return 8 if current != 8 else 16


def _setting(key: str, value: Any) -> list[str]:
    group, name = key.split(".", 1)
    if group != "options":
        return ["--cuda-graph-config", json.dumps({group: {name: value}})]
    flag = spec(key).flag
    assert flag is not None
    return [flag.flag] if value is True else [flag.flag, str(value)]


@pytest.mark.parametrize("target", ["sglang", *EMIT_ENGINES])
@pytest.mark.parametrize("key", KEYS)
def test_no_emitter_drops_a_key_silently(key: str, target: str) -> None:
    """Changing any key changes what ``--emit TARGET`` prints, or adds a note about it."""
    context = _BASE + _CONTEXT.get(key, [])
    before = resolve_args(context)
    group, name = key.split(".", 1)
    current = before.options[name] if group == "options" else before.config[group][name]
    after = resolve_args([*context, *_setting(key, _other_value(spec(key), current))])
    assert emit_plan(after, target) != emit_plan(before, target), (
        f"--emit {target} writes nothing and notes nothing for {key}")


def test_a_key_spelled_without_how_is_copied_as_is(monkeypatch: pytest.MonkeyPatch) -> None:
    import cgconfig.emit_keys as emit_keys

    field = spec("options.debug_cuda_graph")
    copied = FieldSpec(field.key, field.kind, field.default, engines=(
        EngineKey("vllm", "pass_config.debug"),))
    monkeypatch.setattr(emit_keys, "spec", lambda key: copied if key == field.key else spec(key))
    doc: dict[str, Any] = {"pass_config": {"other": 1}}
    copy_keys(resolve_args([*_BASE, "--debug-cuda-graph"]), "vllm", doc)
    assert doc == {"pass_config": {"other": 1, "debug": True}}
    doc = {}
    copy_keys(resolve_args(_BASE), "vllm", doc)
    assert doc == {}  # the default is not written


def test_a_new_decode_key_vllm_cannot_say_is_a_note_not_a_drop(monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """The gap a hand list left: ``--emit vllm`` noted only the prefill keys it listed."""
    import cgconfig.emit_keys as emit_keys
    from cgconfig.engines.vllm.emit import vllm_args

    new = FieldSpec("decode.new_size", "int", None, optional=True, gt=0, engines=(
        NotExpressible("vllm", "decode-extra", "vLLM has no such decode setting"),))
    monkeypatch.setattr(emit_keys, "all_config_keys", lambda: [*KEYS, new.key])
    monkeypatch.setattr(emit_keys, "spec", lambda key: new if key == new.key else spec(key))
    plan = resolve_args(_BASE)
    assert not any("decode.new_size" in note for note in vllm_args(plan)[1])
    plan.config["decode"]["new_size"] = 7
    assert "[decode-extra] decode.new_size=7 has no vLLM equivalent" in vllm_args(plan)[1]
