"""Each key is declared once (``cgconfig/fields/config.py``); everything else reads it."""

from __future__ import annotations

import argparse

from cgconfig.api import add_arguments
from cgconfig.cli.complete import candidates
from cgconfig.cli.help import command_help
from cgconfig.engines.sglang.emit import sglang_args
from cgconfig.fields import migration_doc
from cgconfig.fields.flags import CONFIG_FLAGS, OPTION_FLAGS, flag_index
from cgconfig.fields.table import all_config_keys, spec


def _declared() -> dict[str, str]:
    return {key: s.flag.flag for key in all_config_keys() if (s := spec(key)).flag}


def test_migration_doc_is_current() -> None:
    assert migration_doc.DOC.read_text() == migration_doc.render(), (
        "regenerate: python -m cgconfig.fields.migration_doc")


def test_every_declared_flag_reaches_parser_help_completion_and_launchers() -> None:
    declared = _declared()
    assert "options.torch_compile_max_bs" in declared
    help_text = command_help("resolve")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    launcher = {s for action in parser._actions for s in action.option_strings}
    for key, flag in declared.items():
        assert flag_index()[flag].writes[0][0] == key
        assert flag in help_text
        assert flag in candidates(["cgconfig", "resolve", flag[:-1]], 2)
        assert flag in launcher


def test_the_emitter_reads_option_flags_and_defaults_from_the_declarations() -> None:
    from cgconfig import resolve_args

    plan = resolve_args(["--torch-compile-max-bs", "32", "--enable-cudagraph-gc"])
    args = sglang_args(plan)
    assert "--torch-compile-max-bs" not in args  # the declared default is not emitted
    assert "--enable-cudagraph-gc" in args
    plan = resolve_args(["--torch-compile-max-bs", "16"])
    assert sglang_args(plan)[-2:] == ["--torch-compile-max-bs", "16"]


def test_flag_tables_hold_no_hand_written_per_key_flag() -> None:
    per_key = {f.name for f in CONFIG_FLAGS + OPTION_FLAGS
               if len(f.writes) == 1 and f.writes[0][1] is not True
               and f.name != "--cuda-graph-config" and not isinstance(f.writes[0][1], str)}
    declared = set(_declared().values())
    aliases = {a for key in all_config_keys() if (s := spec(key)).flag for a in s.flag.aliases}
    assert per_key <= declared | aliases


def test_derived_facts_have_one_declaration_of_their_types() -> None:
    from cgconfig import resolve_args
    from cgconfig.derived import DERIVED_TYPES, derived_types

    plan = resolve_args(["--gpu-memory-gib", "80"])
    assert set(plan.facts["derived"]) == set(derived_types("sglang"))
    vllm = resolve_args(["--dialect", "vllm", "--gpu-memory-gib", "80"])
    assert set(DERIVED_TYPES) <= set(vllm.facts["derived"])
    assert not set(vllm.facts["derived"]) & (set(derived_types("sglang")) - set(DERIVED_TYPES))
