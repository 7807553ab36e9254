"""Which words of a launch line are options: the one reading every splitter and parser uses.

Each engine's parser decides it by its own rules, and cgconfig follows them exactly:

* ``argparse`` (SGLang 0.5.23 and cgconfig's own flags; Python 3.11's ``ArgumentParser._parse_optional``):
  a word not starting with ``-``, ``-`` alone, a negative number (``_negative_number_matcher``,
  ``^-\\d+$|^-\\d*\\.\\d+$``: ``-1``, ``-0.5``, ``-.5``, but not ``-1.`` nor ``-1e3``) unless the
  parser has an option that looks like one, and a word with a space that names no option are
  values; ``--`` ends the options; every other ``-`` word is an option (known or not).
* ``vllm`` (vLLM 0.33.0's ``FlexibleArgumentParser.parse_args``): argparse, except that its
  pre-pass turns every ``-`` word with a ``.`` before any ``=`` into a dotted config key
  (``-cc.mode=3``), wherever it stands: ``-0.5`` and ``-.5`` are options there.
* ``click`` (trtllm-serve): every ``-`` word longer than one character is an option where an
  option may stand (``-1`` included); an option's value is the next word, whatever it is.

Checked against the engines' own parsers in the oracle (``tests/sources/test_tokens.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, cast

from cgconfig.line import registry

ParserKind = Literal["argparse", "vllm", "click"]
PARSER_KINDS: tuple[ParserKind, ...] = ("argparse", "vllm", "click")
#: Each engine's parser (the registry's ``parser``; SGLang's and cgconfig's own flags: argparse).
ENGINE_PARSERS: Mapping[str, ParserKind] = registry.Column(
    lambda row: cast(ParserKind, row.parser))
#: The word after which every word is a positional (argparse and click alike).
END_OF_OPTIONS = "--"


def is_negative_number(token: str) -> bool:
    """Python 3.11 argparse's ``_negative_number_matcher``, ``^-\\d+$|^-\\d*\\.\\d+$`` with
    ``match``: ``\\d`` is any Unicode decimal digit and ``$`` also matches before a final
    newline. Written out: compiling the pattern costs more at start-up than the check."""
    if token[:1] != "-":
        return False
    digits = token[1:-1] if token.endswith("\n") else token[1:]
    if digits.isdecimal():
        return True
    whole, dot, fraction = digits.partition(".")
    return bool(dot) and fraction.isdecimal() and (not whole or whole.isdecimal())


def is_option(token: str, parser: ParserKind = "argparse", *,
              negative_number_options: bool = False) -> bool:
    """Whether ``token`` is an option string (a flag, or ``--``) rather than a value, as
    ``parser`` reads it where an option may stand. ``negative_number_options``: the parser has
    an option that looks like a negative number (argparse then reads ``-1`` as an option)."""
    if token[:1] != "-" or token == "-":
        return False
    if parser == "click" or token == END_OF_OPTIONS:
        return True
    name = token.partition("=")[0] if "=" in token else token
    if parser == "vllm" and "." in name:
        return True  # FlexibleArgumentParser's dotted keys: -cc.mode, and -0.5 with them
    if token[1] != "-" and not negative_number_options and is_negative_number(token):
        return False
    return " " not in name


def takes_any_value(parser: ParserKind) -> bool:
    """Whether an option's value is the next word whatever it is (click), rather than only a
    word that is no option (argparse)."""
    return parser == "click"


def parser_kind(table_parser: dict[str, object]) -> ParserKind:
    """The rules an engine table's parser follows (the table's ``parser`` block)."""
    if table_parser.get("kind") == "click":
        return "click"
    return "vllm" if table_parser.get("dotted_json") else "argparse"


def has_negative_number_options(options: Iterable[str]) -> bool:
    """argparse's ``_has_negative_number_optionals`` for a parser with these option strings."""
    return any(is_negative_number(option) for option in options)
