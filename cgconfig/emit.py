"""Turn a plan back into engine flags (each engine's own emitter, its plug-in part ``emit``:
``cgconfig/engines/<engine>/emit.py``) or shell variables.

Units differ between the engines (``Plan.units``): SGLang's decode sizes count requests, its
prefill sizes and all of vLLM's count tokens (a decode step takes ``tokens_per_request`` tokens
per request under speculative decoding). Each emitter converts; a size that does not convert
exactly is refused with one line naming the phase.
"""

from __future__ import annotations

import shlex
from typing import Any

from cgconfig.errors import InputError
from cgconfig.line import registry
from cgconfig.line.plugins import PACKAGES, part
from cgconfig.plan import Plan


def host_args_variable() -> str:
    """The ``--emit env`` variable holding the host dialect's flags (``CGCONFIG_SGLANG_ARGS``)."""
    return f"CGCONFIG_{registry.host().upper()}_ARGS"


def host_words(plan: Plan) -> tuple[str, list[str]]:
    """The host dialect's flags (its part ``emit``) as shell words, or ``""`` and the reason
    when the plan's sizes do not convert into them (a vLLM line's decode tokens are not whole
    requests): ``--emit env``'s other variables still hold."""
    try:
        text, _ = part(registry.host(), "emit")(plan, None)
    except InputError as error:
        return "", [f"{host_args_variable()} and CGCONFIG_CUDA_GRAPH_CONFIG are empty: {error}"]
    return str(text).rstrip("\n"), []


def shell_quote(text: str) -> str:
    """``text`` as one POSIX shell word that reads back exactly, written in characters a
    terminal shows as they are: :func:`shlex.quote` for the plain runs, and each run of
    characters the CLI's stdout guard would escape (``\\r``, ESC, C1 controls, bidi
    overrides, line separators: :data:`cgconfig.terminal.TERMINAL_UNSAFE`) as
    ``"$(printf '\\ooo')"``, its UTF-8 bytes in octal (POSIX ``printf``; bash, dash, zsh and
    busybox sh alike). A line break stays as it is inside quotes: the guard keeps it, and a
    command substitution would drop it. A byte the OS gave as an undecodable argument
    (``\\udcff``) is written back as that byte."""
    from cgconfig.terminal import TERMINAL_UNSAFE

    if not TERMINAL_UNSAFE.search(text):
        return shlex.quote(text)
    pieces: list[str] = []
    start = 0
    for found in TERMINAL_UNSAFE.finditer(text):
        if found.start() > start:
            pieces.append(shlex.quote(text[start:found.start()]))
        char = found.group()
        try:
            data = char.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate from no OS argument: as UTF-8 would be
            data = char.encode("utf-8", "surrogatepass")
        pieces.append('"$(printf \'' + "".join(f"\\{byte:03o}" for byte in data) + '\')"')
        start = found.end()
    if start < len(text):
        pieces.append(shlex.quote(text[start:]))
    return "".join(pieces)


def env_lines(plan: Plan) -> list[str]:
    """``export`` lines for shell ``eval``: backends, size lists and the host dialect's flags."""
    lines = []
    for phase in ("decode", "prefill"):
        cap = plan.capture[phase]
        upper = phase.upper()
        lines.append(f"export CGCONFIG_{upper}_BACKEND={shell_quote(cap['backend'])}")
        lines.append(f"export CGCONFIG_{upper}_SIZES={shell_quote(' '.join(map(str, cap['sizes'])))}")
        lines.append(f"export CGCONFIG_{upper}_UNIT={shell_quote(plan.size_unit(phase))}")
    lines.append(f"export {host_args_variable()}={shell_quote(host_words(plan)[0])}")
    lines.append(f"export CGCONFIG_DOWNGRADED={'1' if plan.downgraded else '0'}")
    return lines


def emit_plan(plan: Plan, target: str, user_config: dict[str, Any] | None = None
              ) -> tuple[str, list[str]]:
    """Text for ``resolve --emit TARGET`` and notes on what the target cannot express;
    ``user_config`` is the line's own vLLM compilation config, or for ``trtllm`` its options
    file (their non-graph keys are kept)."""
    if target == "env":
        return "\n".join(env_lines(plan)) + "\n", host_words(plan)[1]
    if target not in PACKAGES:
        raise ValueError(f"unknown emit target {target!r}")
    text, notes = part(target, "emit")(plan, user_config)
    return str(text), list(notes)
