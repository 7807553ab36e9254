"""Generated from the engine tables: every flag of SGLang 0.5.23, ``vllm serve`` 0.33.0 and
trtllm-serve passes through ``resolve`` (with the table's sample value) without
``--ignore-unknown-args``: none is unknown. A flag whose sample value the engine refuses, or that
needs companions, may fail, but never as an unknown flag."""

from __future__ import annotations

import pytest

from cgconfig.api import request_from_argv, resolve_args, resolve_request
from cgconfig.errors import CgConfigError
from cgconfig.line import load_table
from cgconfig.line.table import EngineFlag
from cgconfig.sources.entry_point import PARALLEL_FACTS

#: How each engine's line starts: SGLang's flags need no entry point (its dialect is the
#: default); the others name the engine and its model positional.
ENTRY = {"sglang": ["python", "-m", "sglang.launch_server"], "vllm": ["vllm", "serve", "M"],
         "trtllm": ["trtllm-serve", "M"]}
UNKNOWN = ("unknown flag", "unknown option", "unexpected argument", "ambiguous option",
           "unrecognized")
CASES = [(engine, flag) for engine in ENTRY for flag in load_table(engine).flags
         if not flag.positional]


def flag_argv(flag: EngineFlag) -> list[str]:
    """The flag in its primary spelling with its sample value (none for a switch)."""
    if not flag.takes_value:
        return [flag.name]
    return [flag.name, flag.sample if flag.sample is not None else "1"]


def test_the_tables_are_whole() -> None:
    assert [len(load_table(e).flags) for e in ENTRY] == [531, 321, 33]


@pytest.mark.parametrize(("engine", "flag"), CASES,
                         ids=[f"{engine}:{flag.name}" for engine, flag in CASES])
def test_table_flag_is_known(engine: str, flag: EngineFlag) -> None:
    argv = ENTRY[engine] + flag_argv(flag)
    try:
        request = request_from_argv(argv, environ={})
        plan = resolve_request(request)
    except CgConfigError as error:
        assert not any(word in str(error) for word in UNKNOWN), str(error)
        return
    assert request.dialect == engine
    if not flag.modelled:
        read_as_fact = engine != "sglang" and (
            flag.dest == "model" or PARALLEL_FACTS.get(flag.dest) in request.fact_sources)
        # A flag that changes the engine's graphs but is not modelled is a note, never listed
        # under "Ignored (no effect on CUDA graphs)".
        unmodelled = engine != "sglang" and flag.graph_effect and any(
            n.startswith(f"not modelled: {flag.name} ") for n in plan.notes)
        assert flag.name in plan.ignored_args or read_as_fact or unmodelled
        if engine != "sglang" and flag.graph_effect:
            assert flag.name not in plan.ignored_args


@pytest.mark.parametrize("engine", list(ENTRY))
def test_a_flag_the_engine_lacks_is_one_error_with_a_suggestion(engine: str) -> None:
    table = load_table(engine)
    long = next(f.name for f in table.flags if f.name.startswith("--") and len(f.name) > 12)
    typo = long[:-2] + long[-1] + long[-2]  # swap the last two letters
    with pytest.raises(CgConfigError) as caught:
        resolve_args(ENTRY[engine] + [typo], environ={})
    message = str(caught.value)
    assert "unknown" in message and table.label in message
    assert f"'{long}'" in message
