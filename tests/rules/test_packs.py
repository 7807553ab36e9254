"""Loading the packs: ids, paths, literals, file:line errors, capability data."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from cgconfig.errors import InputError
from cgconfig.fields.deployment import ATTENTION_BACKENDS
from cgconfig.rules import cache
from cgconfig.rules.cache import shipped_pack_files
from cgconfig.rules.loader import check_rule, load_pack_file, load_rule_set

GOOD_RULE = """\
pack: user
title: A user pack
rules:
  - id: user.lora-no-prefill
    title: LoRA prefills eagerly
    kind: policy
    when: {eq: {path: facts.enable_lora, value: true}}
    then:
      - set: {key: prefill.backend, value: disabled}
    reason: "LoRA (enable_lora={facts.enable_lora})"
    source: "test"
    examples:
      - {args: [--enable-lora], fires: true}
      - {args: [], fires: false}
"""


def _write(tmp_path: Path, text: str, name: str = "pack.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_shipped_packs_load_and_are_ordered() -> None:
    names = [p.name for p in shipped_pack_files()]
    assert names == sorted(names)
    assert {"10-roles.yaml", "20-attention.yaml", "30-breakable-prefill.yaml",
            "40-platforms.yaml", "50-features.yaml"} <= set(names)
    rule_set = load_rule_set()
    assert len(rule_set.rules) >= 40


def test_rule_ids_are_unique_and_namespaced() -> None:
    ids = [r.id for r in load_rule_set().rules]
    assert len(ids) == len(set(ids))
    for rule_id in ids:
        assert "." in rule_id, f"{rule_id}: ids are '<area>.<name>'"


def test_every_path_and_literal_checks() -> None:
    for rule in load_rule_set().rules:
        assert check_rule(rule) == [], rule.id


def test_each_shipped_pack_validates_on_its_own() -> None:
    for path in shipped_pack_files():
        pack = load_pack_file(path)
        assert pack.rules


def test_capability_table_covers_every_attention_backend() -> None:
    table = load_rule_set().capabilities["sglang"]
    assert set(table.backends) == set(ATTENTION_BACKENDS)
    assert table.levels == ["NEVER", "UNIFORM_SINGLE_TOKEN_DECODE", "UNIFORM_BATCH", "ALWAYS"]


def test_a_user_pack_adds_rules(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD_RULE)
    rule_set = load_rule_set([str(path)])
    assert rule_set.rules[-1].id == "user.lora-no-prefill"
    assert rule_set.pack_of["user.lora-no-prefill"] == "user"


def test_duplicate_id_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD_RULE.replace("user.lora-no-prefill",
                                              "attention.torch-native-eager"))
    with pytest.raises(InputError, match=re.escape("duplicate rule id 'attention.torch-native-eager'")):
        load_rule_set([str(path)])


@pytest.mark.parametrize(("old", "new", "message", "line"), [
    ("facts.enable_lora, value: true", "facts.enable_lorra, value: true",
     r"unknown path 'facts.enable_lorra' \(did you mean 'facts.enable_lora'\?\)", 5),
    ("facts.enable_lora, value: true", 'facts.enable_lora, value: "yes"',
     "does not fit facts.enable_lora", 5),
    ("{key: prefill.backend, value: disabled}", "{key: prefill.backend, value: off}",
     "does not fit config.prefill.backend", 5),
    ("{key: prefill.backend, value: disabled}", "{key: prefill.backnd, value: disabled}",
     "unknown config key 'prefill.backnd'", 5),
    ("LoRA (enable_lora={facts.enable_lora})", "LoRA ({facts.lora})",
     r"placeholder \{facts.lora\}", 5),
])
def test_broken_pack_names_file_and_line(tmp_path: Path, old: str, new: str, message: str,
                                         line: int) -> None:
    # Rules start on line 4 of the file; the loader points at the rule's line.
    path = _write(tmp_path, "# a comment line\n" + GOOD_RULE.replace(old, new))
    with pytest.raises(InputError, match=message) as info:
        load_rule_set([str(path)])
    assert f"{path}:{line}:" in str(info.value)


def test_schema_error_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD_RULE.replace("kind: policy", "kind: preference"))
    with pytest.raises(InputError) as info:
        load_pack_file(path)
    assert f"{path}:6" in str(info.value)
    assert "kind" in str(info.value)


def test_examples_must_go_both_ways(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD_RULE.replace("{args: [], fires: false}",
                                              "{args: [], fires: true}"))
    with pytest.raises(InputError, match="one where it does not"):
        load_pack_file(path)


def test_shipped_cache_round_trips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON cache of the shipped packs gives back the same rules."""
    monkeypatch.delenv("CGCONFIG_NO_CACHE", raising=False)
    monkeypatch.setenv("CGCONFIG_CACHE_DIR", str(tmp_path))
    first = load_rule_set()
    assert list(tmp_path.glob("packs-*.json"))
    second = load_rule_set()
    assert [r.model_dump() for r in first.rules] == [r.model_dump() for r in second.rules]
    assert set(cache.capability_files()) == {"sglang"}
    assert second.capabilities.keys() == first.capabilities.keys()


def test_the_docs_catalogue_lists_every_shipped_rule() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    catalogue = docs.split("## 10. Catalogue of shipped rules", 1)[1]
    for rule in load_rule_set().rules:
        row = f"| `{rule.id}` | {rule.kind} |"
        assert row in catalogue, f"{rule.id} is missing from docs/rules.md"


def test_contains_operator_matches_list_valued_paths(tmp_path) -> None:
    from cgconfig import resolve_args

    path = tmp_path / "pack.yaml"
    path.write_text(
        "pack: user\ntitle: t\nrules:\n"
        "  - id: user.no-triton-prefill\n    title: t\n    kind: policy\n"
        "    when: {contains: {path: derived.attention_backends, value: triton}}\n"
        "    then: [{set: {key: prefill.backend, value: disabled}}]\n"
        "    reason: r\n    source: s\n"
        "    examples:\n"
        "      - {args: [--prefill-attention-backend, triton], fires: true}\n"
        "      - {args: [--attention-backend, fa3], fires: false}\n")
    fired = resolve_args(["--rules", str(path), "--prefill-attention-backend", "triton",
                          "--decode-attention-backend", "fa3"])
    assert fired.backend("prefill") == "disabled"
    decision = next(d for d in fired.decisions if d.rule == "user.no-triton-prefill")
    assert decision.matched[0].op == "contains"
    assert resolve_args(["--rules", str(path), "--attention-backend", "fa3"]).backend(
        "prefill") == "breakable"


def test_contains_rejects_a_non_list_path_and_a_bad_item(tmp_path) -> None:
    from cgconfig.errors import InputError
    from cgconfig.rules.loader import load_pack_file

    base = ("pack: user\ntitle: t\nrules:\n  - id: user.x\n    title: t\n    kind: policy\n"
            "    when: {contains: {path: PATH, value: VALUE}}\n"
            "    then: [{warn: true}]\n    reason: r\n    source: s\n"
            "    examples: [{args: [], fires: true}, {args: [], fires: false}]\n")
    for path_text, value, message in (("facts.tp_size", "2", "is not a list"),
                                      ("derived.attention_backends", "flashinfr", "flashinfer")):
        target = tmp_path / f"{value}.yaml"
        target.write_text(base.replace("PATH", path_text).replace("VALUE", value))
        with pytest.raises(InputError, match=message):
            load_pack_file(target)


def test_shipped_packs_sit_in_their_engine_folder() -> None:
    """Each engine's packs are the ``rules/`` folder of its plug-in package (found through the
    registry, no folder of packs in the core)."""
    from cgconfig.line import plugins

    assert shipped_pack_files()
    for path in shipped_pack_files():
        engine = load_pack_file(path).engine
        assert path.parent == plugins.rules_folder(engine), path
        assert path.parent.parent.name == plugins.PACKAGES[engine].rsplit(".", 1)[-1], path
    assert sorted(shipped_pack_files()) == sorted(
        f for engine in plugins.PACKAGES for f in plugins.pack_files(engine))


def test_a_shipped_pack_in_another_engine_folder_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cgconfig.line import plugins
    from cgconfig.rules import loader

    folder = tmp_path / "vllm" / "rules"
    folder.mkdir(parents=True)
    source = next(p for p in shipped_pack_files() if load_pack_file(p).engine == "sglang")
    (folder / source.name).write_text(source.read_text())
    real = plugins.rules_folder
    monkeypatch.setattr(plugins, "rules_folder",
                        lambda engine: folder if engine == "vllm" else real(engine))
    monkeypatch.setattr(loader, "read_cache", lambda: None)
    monkeypatch.setattr(loader, "write_cache", lambda data: None)
    with pytest.raises(InputError, match="declares engine: sglang but sits in vllm's rules/"):
        loader.shipped_packs()
