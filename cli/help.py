"""Help text for ``resolve`` and ``explain``, generated from the flag tables, grouped by engine
and fitted to the terminal's width (or ``COLUMNS``; 80 columns when piped)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cgconfig.cli.options import CLI_FLAGS
from cgconfig.cli.width import width, wrap
from cgconfig.fields.flags import CONFIG_FLAGS, FACT_FLAGS, OPTION_FLAGS, SETTING_FLAGS, Flag
from cgconfig.line.versions import release_label

if TYPE_CHECKING:
    from cgconfig.line.table import EngineFlag

#: The width help is laid out for when stdout is not a terminal and ``COLUMNS`` is unset.
PIPED_WIDTH = 80
#: The column help texts start at (flags longer than this get their text on the next line).
TEXT_COLUMN = 32

_USAGE = {
    "resolve": ("cgconfig resolve [FLAGS...]",
                "Resolve the CUDA-graph plan: per phase, the backend and the exact sizes to "
                "capture. Exit codes: 0 resolved, 2 bad input, 3 --strict conflict, 10 --check: "
                "a constraint overrode a value you set."),
    "explain": ("cgconfig explain [KEY...] [FLAGS...]",
                "Show, for each key (or each KEY named, such as decode.backend or "
                "engine.mem_fraction_static), the chain from the default through every input "
                "and rule to the final value, and why."),
}

_LINES = ("Accepts any of the three engines' launch lines as well as cgconfig's own flags: "
          "`python -m sglang.launch_server ...` or `sglang serve ...` (SGLang {sglang}), "
          "`vllm serve MODEL ...` (vLLM {vllm}) and `trtllm-serve MODEL ...`, after `VAR=value` "
          "prefixes. Every flag the line's engine knows is accepted: the ones below are read, "
          "the others have no CUDA-graph effect and are listed as ignored; a flag the engine "
          "does not know is an error with a did-you-mean.")

#: What cgconfig reads from each vLLM flag it models (vLLM's own table has no help texts).
VLLM_HELP = {
    "--compilation-config": "vLLM's compilation config as JSON (cudagraph_mode, "
                            "cudagraph_capture_sizes, max_cudagraph_capture_size, mode); "
                            "dotted -cc.KEY=VALUE merges on top.",
    "--enforce-eager": "No CUDA graphs at all (vLLM's enforce_eager).",
    "--max-num-seqs": "vLLM's request limit; the default capture sizes follow it.",
    "--max-num-batched-tokens": "vLLM's token budget per step; bounds the default sizes.",
    "--speculative-config": "Speculative decoding as JSON; num_speculative_tokens rounds the "
                            "capture sizes.",
    "--num-speculative-tokens": "cgconfig's: the draft tokens per step, as in "
                                "--speculative-config.",
    "--cudagraph-capture-sizes": "Exact capture sizes (tokens).",
    "--max-cudagraph-capture-size": "The largest capture size (tokens).",
    "--cudagraph-support": "cgconfig's: the attention backend's CUDA-graph support level, as "
                           "vLLM's worker would compute it.",
    "--vllm-attention-backend": "cgconfig's: the vLLM attention backend whose support level "
                                "applies (FLASH_ATTN, FLASHINFER, ...).",
}

#: What cgconfig reads from trtllm-serve's options file.
TRTLLM_HELP = ("Options YAML: cuda_graph_config (batch_sizes, max_batch_size, enable_padding; "
               "null: no decode graphs) and torch_compile_config.enable_piecewise_cuda_graph "
               "(prefill graphs).")


def _arg(flag: Flag) -> str:
    if flag.value == "switch":
        return ""
    if flag.choices and len(flag.choices) <= 8:
        return " {" + ",".join(flag.choices) + "}"
    if flag.value == "int_list":
        return " N [N ...]"
    return " " + (flag.metavar or flag.value.upper().replace("HUMAN_", ""))


def _row(names: str, text: str, limit: int) -> list[str]:
    """``  --flag ARG    text`` with the text wrapped under :data:`TEXT_COLUMN`."""
    left = f"  {names}"
    column = TEXT_COLUMN if limit >= TEXT_COLUMN + 30 else 8
    if len(left) < column - 1:
        return wrap(f"{left:<{column}}{text}", limit, column)
    return [*wrap(left, limit, 6), *wrap(" " * column + text, limit, column)]


def _flag_row(flag: Flag, limit: int) -> list[str]:
    text = flag.help if not flag.replacement else (
        f"Deprecated, cgconfig only (not a flag of {release_label('sglang')}): use "
        f"{flag.replacement}.")
    return _row(", ".join([flag.name, *flag.aliases]) + _arg(flag), text, limit)


def _vllm_arg(flag: EngineFlag) -> str:
    """The argument placeholder of a vLLM flag's help row."""
    if not flag.takes_value:
        return ""
    if flag.nargs == "+":
        return " N [N ...]"
    return " JSON" if flag.type == "json" or "config" in flag.options[0] else " N"


def _older_vllm_rows(newest_spellings: set[str], limit: int) -> list[str]:
    """A row for each flag cgconfig models in an older vLLM release's table but that the
    newest release no longer has (``--cuda-graph-sizes``), naming the releases that read it."""
    from cgconfig.line.table import load_table
    from cgconfig.line.versions import SUPPORTED, label

    releases: dict[tuple[str, ...], list[str]] = {}
    flags: dict[tuple[str, ...], EngineFlag] = {}
    for release in SUPPORTED["vllm"][:-1]:
        for flag in load_table("vllm", release).flags:
            # a flag the newest lacks, or spellings of one it has (vLLM 0.11.2's -O)
            missing = tuple(o for o in flag.options if o not in newest_spellings)
            if flag.modelled and missing:
                releases.setdefault(missing, []).append(release)
                flags.setdefault(missing, flag)
    rows: list[str] = []
    for key, found in releases.items():
        span = label("vllm", found[0]) + ("" if len(found) == 1 else f" to {found[-1]}")
        flag = flags[key]
        what = flag.cgconfig or flag.help
        if key != tuple(flag.options):  # only some spellings: name the flag they spell
            what = f"{', '.join(key)} spells {flag.options[0]} ({what})"
            if "-O" in key:
                what += "; -O<n> is -O.mode=<n>, the compilation mode"
        rows += _row(", ".join(key) + _vllm_arg(flag), f"{span} only: {what}.", limit)
    return rows


def _engine_rows(limit: int) -> tuple[list[str], list[str], dict[str, str]]:
    """The vLLM rows, the trtllm-serve rows and the engines' versions."""
    from cgconfig.engines.trtllm.flags import DIALECT_FLAGS as TRTLLM_FLAGS
    from cgconfig.engines.vllm.flags import DIALECT_FLAGS as VLLM_FLAGS
    from cgconfig.line.table import load_table

    vllm, trtllm = load_table("vllm"), load_table("trtllm")
    rows: list[str] = []
    seen: set[str] = set()
    for flag in vllm.flags:
        if flag.modelled and flag.options:
            rows += _row(", ".join(flag.options) + _vllm_arg(flag),
                         VLLM_HELP.get(flag.options[0], ""), limit)
            seen.update(flag.options)
    for name, arity in VLLM_FLAGS.flags.items():
        if name not in seen and name in VLLM_HELP:
            rows += _row(name + ("" if arity == 0 else " NAME" if "backend" in name else
                                 " LEVEL" if "support" in name else " N"),
                         VLLM_HELP[name], limit)
    rows += _row("-cc.KEY=VALUE", "One compilation-config key (vLLM's dotted form; wins over "
                 "the JSON).", limit)
    rows += _older_vllm_rows(seen, limit)
    spellings = sorted({*TRTLLM_FLAGS.flags, *(o for f in trtllm.flags if f.modelled
                                                for o in f.options)})
    trt_rows = _row(", ".join(spellings) + " FILE", TRTLLM_HELP, limit)
    return rows, trt_rows, {"vllm": vllm.version, "trtllm": trtllm.version}


def command_help(command: str, limit: int | None = None) -> str:
    """The full help text of ``resolve`` or ``explain``, at most ``limit`` columns wide
    (default: the terminal's width, ``COLUMNS``, or 80 when piped)."""
    from cgconfig.line.table import load_table

    limit = limit or width(PIPED_WIDTH) or PIPED_WIDTH
    sglang = load_table("sglang")
    usage, about = _USAGE[command]
    vllm_rows, trt_rows, versions = _engine_rows(limit)
    own_facts = [f for f in FACT_FLAGS if f.name not in sglang.by_spelling]
    sglang_facts = [f for f in FACT_FLAGS if f.name in sglang.by_spelling]
    out = [*wrap(f"Usage: {usage}", limit, 7), ""]
    out += wrap(about, limit, 0)
    out.append("")
    out += wrap(_LINES.format(sglang=sglang.version, vllm=versions["vllm"]), limit, 0)
    out.append("")
    sections: list[tuple[str, list[str]]] = [
        ("cgconfig's own flags (any line)",
         [r for f in (*SETTING_FLAGS, *CLI_FLAGS, *own_facts) for r in _flag_row(f, limit)]),
        ("SGLang flags: graph configuration (precedence: defaults < --disable-cuda-graph < "
         "per-phase off-switches < convenience flags < --cuda-graph-config)",
         [r for f in CONFIG_FLAGS for r in _flag_row(f, limit)]),
        ("SGLang flags: graph options", [r for f in OPTION_FLAGS for r in _flag_row(f, limit)]),
        (f"SGLang flags: deployment facts (SGLang {sglang.version}'s server-argument names)",
         [r for f in sglang_facts for r in _flag_row(f, limit)]),
        (f"vLLM flags (a `vllm serve MODEL` line, or --dialect vllm; vLLM {versions['vllm']})",
         vllm_rows),
        ("trtllm-serve flags (a `trtllm-serve MODEL` line, or --dialect trtllm)", trt_rows),
    ]
    for title, rows in sections:
        out += wrap(title + ":", limit, 2)
        out += rows
        out.append("")
    return "\n".join(out)


#: An option row of a hand-written help text: indent, the flag part, two spaces, the text.
_OPTION_ROW = re.compile(r"^( +[-A-Z]\S*(?: \S+)*? {2,})(\S.*)$")


@dataclass
class _Piece:
    """One paragraph, option row or example command of a hand-written help text."""

    prefix: str
    text: str
    hang: int
    kind: str


def fit_help(text: str, limit: int | None = None) -> str:
    """A hand-written help text reflowed to ``limit`` columns (default: the terminal's,
    ``COLUMNS``, or 80): paragraphs are joined and wrapped at their indent, option rows keep
    their text column (their continuation lines are joined), example commands hang."""
    limit = limit or width(PIPED_WIDTH) or PIPED_WIDTH
    pieces: list[_Piece] = []
    for line in text.rstrip("\n").split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        row = _OPTION_ROW.match(line)
        last = pieces[-1] if pieces else None
        if not line.strip():
            pieces.append(_Piece("", "", 0, "blank"))
        elif row:
            pieces.append(_Piece(row.group(1), row.group(2), len(row.group(1)), "row"))
        elif last and last.kind == "row" and indent == last.hang:
            last.text = f"{last.text} {line.strip()}"
        elif line.lstrip().startswith("cgconfig "):
            pieces.append(_Piece(" " * indent, line.strip(), indent + 4, "command"))
        elif last and last.kind == "text" and indent == len(last.prefix):
            last.text = f"{last.text} {line.strip()}"
        else:
            hang = 7 if line.startswith("Usage: ") else indent
            pieces.append(_Piece(" " * indent, line.strip(), hang, "text"))
    out: list[str] = []
    for piece in pieces:
        out += wrap(piece.prefix + piece.text, limit, piece.hang) if piece.text else [""]
    return "\n".join(out) + "\n"


def print_command_help(command: str) -> None:
    """Write the help of a fast command to stdout."""
    sys.stdout.write(command_help(command) + "\n")
