"""Help text for ``resolve`` and ``explain``, generated from the flag table."""

from __future__ import annotations

import sys

from cgconfig.cli.options import CLI_FLAGS
from cgconfig.fields.flags import CONFIG_FLAGS, FACT_FLAGS, OPTION_FLAGS, SETTING_FLAGS, Flag

_USAGE = {
    "resolve": ("cgconfig resolve [FLAGS...]",
                "Resolve the CUDA-graph plan: per phase, the backend and the exact sizes to "
                "capture.\nAccepts a whole SGLang launch line. Exit codes: 0 resolved, 2 bad "
                "input, 3 --strict conflict, 10 --check: a constraint overrode a value you set."),
    "explain": ("cgconfig explain [KEY] [FLAGS...]",
                "Show, for each key (or one KEY such as decode.backend), the chain from the "
                "default\nthrough every input and rule to the final value, and why."),
}


def _line(flag: Flag) -> str:
    names = ", ".join([flag.name, *flag.aliases])
    if flag.value == "switch":
        arg = ""
    elif flag.choices and len(flag.choices) <= 8:
        arg = " {" + ",".join(flag.choices) + "}"
    elif flag.value == "int_list":
        arg = " N [N ...]"
    else:
        arg = " " + (flag.metavar or flag.value.upper().replace("HUMAN_", ""))
    text = flag.help if not flag.replacement else f"Deprecated: use {flag.replacement}."
    left = f"  {names}{arg}"
    return f"{left:<48} {text}" if len(left) < 48 else f"{left}\n{'':<48} {text}"


def command_help(command: str) -> str:
    """The full help text of ``resolve`` or ``explain``."""
    usage, about = _USAGE[command]
    sections = [
        ("Graph configuration (precedence: defaults < --disable-cuda-graph < per-phase "
         "off-switches < convenience flags < --cuda-graph-config)", CONFIG_FLAGS),
        ("Graph options", OPTION_FLAGS),
        ("Deployment facts (SGLang server-argument names)", FACT_FLAGS),
        ("Control", SETTING_FLAGS + CLI_FLAGS),
    ]
    out = [f"Usage: {usage}", "", about, ""]
    for title, flags in sections:
        out.append(title + ":")
        out.extend(_line(f) for f in flags)
        out.append("")
    return "\n".join(out)


def print_command_help(command: str) -> None:
    """Write the help of a fast command to stdout."""
    sys.stdout.write(command_help(command) + "\n")
