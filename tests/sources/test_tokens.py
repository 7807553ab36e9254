"""One reading of "is this word an option", pinned for every consumer of a split line.

The words the five former predicates disagreed on (``-.5``, ``-1.``, ``-``, ``--``, ``-1e3``,
``--x=-1``), read as the engines' own parsers read them:

* SGLang 0.5.23 and cgconfig's flags: Python 3.11 argparse (the oracle's
  ``sglang_oracle.py --chunked-prefill-size TOKEN``: ``-.5`` and ``-`` are values, "invalid int
  value"; ``-1.``, ``-1e3`` and ``--`` leave the flag without one, "expected one argument");
* vLLM 0.33.0: ``FlexibleArgumentParser.parse_args`` (``vllm/utils/argparse_utils.py``) reads
  every ``-`` word with a ``.`` as a dotted key before argparse runs (in the oracle,
  ``--max-num-seqs -.5`` and ``--gpu-memory-utilization -0.5`` fail there), ``-`` is a value;
* trtllm-serve: click takes an option's next word whatever it is; where an option may stand,
  every ``-`` word but ``-`` alone is one ("No such option"), and ``--`` ends the options
  (checked with click 8.5.1, the oracle's, on a ``--size`` option and a variadic argument).

Each consumer of the split (the splitter, the SGLang grouping and reader, the engine-table
splitter, the vLLM reader, the entry-point source, the CLI's options, ``--emit``'s
compilation-config merge and server words, ``verify``'s launch line) is checked on each word.
"""

from __future__ import annotations

import argparse
import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cgconfig.cli.launch_args import server_argv, user_compilation_config
from cgconfig.cli.options import HOST_FLAGS, parse_options
from cgconfig.engines.sglang.argv import parse_argv, sglang_args
from cgconfig.engines.vllm.flags import DIALECT_FLAGS as VLLM_FLAGS
from cgconfig.errors import InputError
from cgconfig.line.split import split_argv
from cgconfig.line.table import load_table
from cgconfig.line.tokens import (
    ENGINE_PARSERS,
    PARSER_KINDS,
    has_negative_number_options,
    is_negative_number,
    is_option,
    parser_kind,
)
from cgconfig.sources.command_line import request_from_split, split_command_line
from cgconfig.sources.engine_line import read_engine_line
from cgconfig.verify.launch import argv_from_args

WORDS = ("-.5", "-1.", "-", "--", "-1e3", "-1", "-0.5", "-x y", "--x=-1", "1")
#: Whether each word is an option where an option may stand, per parser kind.
OPTION = {
    "argparse": {"-.5": False, "-1.": True, "-": False, "--": True, "-1e3": True, "-1": False,
                 "-0.5": False, "-x y": False, "--x=-1": True, "1": False},
    "vllm": {"-.5": True, "-1.": True, "-": False, "--": True, "-1e3": True, "-1": False,
             "-0.5": True, "-x y": False, "--x=-1": True, "1": False},
    "click": {"-.5": True, "-1.": True, "-": False, "--": True, "-1e3": True, "-1": True,
              "-0.5": True, "-x y": True, "--x=-1": True, "1": False},
}
#: The words after a flag that takes one value: what each kind of line reads.
AFTER_FLAG = ("-.5", "-1.", "-", "--", "-1e3", "-1")

#: The SGLang release these lines are read for (its table gives the flags their arity).
RELEASE = "0.5.23"
VLLM_RELEASE = "0.33.0"


def _value(kind: str, word: str) -> bool:
    return kind == "click" or not OPTION[kind][word]


@pytest.mark.parametrize("kind", PARSER_KINDS)
@pytest.mark.parametrize("word", WORDS)
def test_is_option_is_each_parsers_reading(kind: str, word: str) -> None:
    assert is_option(word, kind) is OPTION[kind][word]  # type: ignore[arg-type]


#: Python 3.11's ``argparse.ArgumentParser._negative_number_matcher``, as written there.
_MATCHER = re.compile(r'^-\d+$|^-\d*\.\d+$')


@given(st.text(alphabet="-.0123456789\n e\u0663\u00b2", max_size=8))
def test_the_negative_number_check_is_argparses_matcher(text: str) -> None:
    assert is_negative_number(text) is bool(_MATCHER.match(text))


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the engines' interpreter is 3.11")
@pytest.mark.parametrize("word", [w for w in WORDS if w != "--x=-1"])
def test_argparse_reading_is_the_standard_librarys(word: str) -> None:
    parser = argparse.ArgumentParser(exit_on_error=False)
    assert parser._negative_number_matcher.pattern == _MATCHER.pattern
    parser.add_argument("--size")
    parser.add_argument("rest", nargs="*")
    try:
        taken = parser.parse_args(["--size", word]).size == word
    except argparse.ArgumentError:
        taken = False
    assert taken is not OPTION["argparse"][word]


@pytest.mark.parametrize("engine", ("sglang", "vllm", "trtllm"))
def test_each_engine_table_names_its_parser_and_has_no_negative_number_option(engine: str) -> None:
    table = load_table(engine)
    assert parser_kind(table.parser) == ENGINE_PARSERS[engine]
    assert not has_negative_number_options(table.by_spelling)


@pytest.mark.parametrize("word", AFTER_FLAG)
def test_the_splitter_gives_a_claimed_flag_its_value(word: str) -> None:
    split = split_argv(["--max-num-seqs", word], (VLLM_FLAGS,))
    arg = split.parts["vllm"].args[0]
    assert arg.values == ((word,) if _value("argparse", word) else ())
    inline = split_argv(["--max-num-seqs=-1"], (VLLM_FLAGS,)).parts["vllm"].args[0]
    assert (inline.name, inline.inline, inline.values) == ("--max-num-seqs", "-1", ())


@pytest.mark.parametrize("line", (["vllm", "serve", "m"], ["trtllm-serve", "m"]))
@pytest.mark.parametrize("word", AFTER_FLAG)
def test_an_entry_point_line_is_split_by_its_engines_rules(line: list[str], word: str) -> None:
    flag = "--max-num-seqs" if line[0] == "vllm" else "--max_batch_size"
    kind = ENGINE_PARSERS["vllm" if line[0] == "vllm" else "trtllm"]
    split = split_command_line([*line, flag, word], HOST_FLAGS)
    arg = split.parts[split.dialect].args[0]
    assert arg.values == ((word,) if _value(kind, word) else ())


@pytest.mark.parametrize("word", AFTER_FLAG)
def test_the_sglang_part_is_grouped_with_the_same_reading(word: str) -> None:
    args = sglang_args(["--chunked-prefill-size", word], "sglang", RELEASE)
    if word == "--":
        assert [a.name for a in args] == ["--chunked-prefill-size", "--"]
    else:
        assert args[0].values == ((word,) if _value("argparse", word) else ())
    # an SGLang flag cgconfig does not model: SGLang's nargs, the same reading
    engine = sglang_args(["--schedule-conservativeness", word], "sglang", RELEASE)[0]
    assert engine.values == ((word,) if _value("argparse", word) else ())


@pytest.mark.parametrize("word", AFTER_FLAG)
def test_the_sglang_reader_says_what_sglang_says(word: str) -> None:
    if word == "-1":  # SGLang's "disabled"
        parsed = parse_argv(["--chunked-prefill-size", word], release=RELEASE)
        assert parsed.facts["chunked_prefill_size"][0] == -1
        return
    with pytest.raises(InputError) as error:
        parse_argv(["--chunked-prefill-size", word], release=RELEASE)
    # a value SGLang would refuse as "invalid int value", or a flag left without one
    assert ("expected an integer" in str(error.value)) is _value("argparse", word)
    assert "\n" not in str(error.value)
    assert parse_argv(["--chunked-prefill-size=-1"], release=RELEASE).facts["chunked_prefill_size"][0] == -1


@pytest.mark.parametrize(("engine", "line", "flag"), (
    ("sglang", ["--model-path", "m"], "--schedule-conservativeness"),
    ("vllm", ["m"], "--dp-supervisor-probe-interval-s"),
    ("trtllm", ["m"], "--max_batch_size")))
@pytest.mark.parametrize("word", AFTER_FLAG)
def test_the_engine_table_splitter_reads_as_the_engine(engine: str, line: list[str], flag: str,
                                                       word: str) -> None:
    """Read as ``cgconfig resolve`` reads the line after the engine's entry point: a word the
    engine's parser takes as the flag's value is its value (refused only as a bad number), a
    word it takes as an option leaves the flag without one."""
    try:
        read_engine_line(engine, [*line, flag, word])
        error = ""
    except InputError as refused:
        error = str(refused)
    if _value(ENGINE_PARSERS[engine], word):
        assert error == "" or error.startswith(f"{flag}: expected "), error
    else:
        assert error and not error.startswith(f"{flag}: expected float"), error
    read_engine_line(engine, [*line, flag + "=-1"])


@pytest.mark.parametrize("word", AFTER_FLAG)
def test_the_vllm_reader_takes_the_splitters_value(word: str) -> None:
    split = split_command_line(["--dialect", "vllm", "--max-num-seqs", word], HOST_FLAGS)
    with pytest.raises(InputError) as error:
        request_from_split(split)
    message = str(error.value)
    assert "\n" not in message
    if _value("argparse", word):
        assert message.startswith("--max-num-seqs: expected a")  # an integer / a positive one
    elif word == "--":  # the options end; "--" and what follows are positionals nobody takes
        assert message.startswith("command line: unexpected argument '--'")
    else:  # no value: the word is a flag neither knows
        assert "unknown flag" in message


@pytest.mark.parametrize("word", AFTER_FLAG)
def test_the_entry_point_source_gets_the_engine_flags_runs(word: str) -> None:
    split = split_command_line(["vllm", "serve", "m", "--dp-supervisor-probe-interval-s", word],
                               HOST_FLAGS)
    arg = split.parts["vllm_engine"].args[0]
    assert arg.values == ((word,) if _value("vllm", word) else ())


@pytest.mark.parametrize("word", AFTER_FLAG)
def test_the_cli_options_take_the_splitters_value(word: str) -> None:
    split = split_command_line(["--allow", word], HOST_FLAGS)
    if _value("argparse", word):
        assert parse_options(split.parts["cli"]).allow == (word,)
    else:
        with pytest.raises(InputError, match="expects a rule id"):
            parse_options(split.parts["cli"])


@pytest.mark.parametrize("word", AFTER_FLAG)
def test_emit_reads_the_same_runs(word: str) -> None:
    line = ["--dialect", "vllm", "-cc.backend", word, "--max-num-seqs", "8"]
    split = split_command_line(line, HOST_FLAGS)
    config = user_compilation_config(split)
    assert config == ({"backend": -1 if word == "-1" else word} if _value("argparse", word)
                      else {"backend": ""})
    # the server keeps what cgconfig does not own; the dotted key goes with its value
    kept = server_argv(split)
    assert "-cc.backend" not in kept and "--max-num-seqs" in kept
    assert (word in kept) is not _value("argparse", word)


def test_verify_writes_a_negative_value_the_splitter_reads_back() -> None:
    argv, _ = argv_from_args("sglang", RELEASE, {"chunked_prefill_size": -1})
    assert argv[-2:] == ["--chunked-prefill-size", "-1"]
    assert parse_argv(argv[3:], release=RELEASE).facts["chunked_prefill_size"][0] == -1


@pytest.mark.parametrize("value", ("-1.", "--", "-.5", "-", "-1e3"))
def test_verify_writes_a_value_that_looks_like_an_option_inline(value: str) -> None:
    for engine, kind in (("sglang", "argparse"), ("vllm", "vllm")):
        argv, _ = argv_from_args(engine, RELEASE if engine == "sglang" else VLLM_RELEASE,
                                 {"attention_backend": value})
        inline = [f"--attention-backend={value}"]
        assert argv[-len(inline) if OPTION[kind][value] else -2:] == (
            inline if OPTION[kind][value] else ["--attention-backend", value])
    argv, _ = argv_from_args("sglang", RELEASE, {"attention_backend": value})
    assert sglang_args(argv[3:], "sglang", RELEASE)[0].given == [value]


@pytest.mark.parametrize(("line", "word"), (
    (["--max-running-requests", "4"], "-1."), (["--max-running-requests", "4"], "-1e3"),
    (["vllm", "serve", "m", "--gpu-memory-utilization"], "-0.5"),
    (["vllm", "serve", "m", "--max-num-seqs"], "-.5")))
def test_a_number_the_parser_reads_as_a_flag_is_one_line_naming_the_fix(line: list[str],
                                                                       word: str) -> None:
    with pytest.raises(InputError) as error:
        request_from_split(split_command_line([*line, word], HOST_FLAGS))
    message = str(error.value)
    assert "\n" not in message and f"unknown flag {word}" in message
    assert f"give the value with '=' (--flag={word})" in message


def test_emit_reads_the_line_as_the_resolution_split_it() -> None:
    # vLLM's parser reads --compilation_config as --compilation-config: so does --emit
    line = ["vllm", "serve", "m", "--compilation_config", '{"backend": "eager"}', "-O3"]
    split = split_command_line(line, HOST_FLAGS)
    assert user_compilation_config(split) == {"backend": "eager"}
    assert server_argv(split) == ["m", "--optimization-level", "3"]
    # the CLI's own -ojson (its value attached) is the CLI's, never the server's
    assert server_argv(split_command_line(["-ojson", "--tp-size", "2"], HOST_FLAGS)) == [
        "--tp-size", "2"]
