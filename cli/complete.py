"""Shell completion without typer or pydantic on the path: one TAB costs a bare start-up.

``cgconfig completion bash|zsh|fish`` prints a script; the script calls
``cgconfig __complete CWORD WORD...``, answered here from the flag table, the phase keys, the
backends and the rule ids (read from the pack files with a regular expression, not a YAML
parser).
"""

from __future__ import annotations

import re
import sys

COMMANDS = ("resolve", "explain", "diff", "migrate", "tune", "verify", "histogram", "rules", "schema",
            "version", "completion")
RULES_SUBCOMMANDS = ("list", "show", "validate")
SCHEMAS = ("config", "deployment", "plan", "rules")
SHELLS = ("bash", "zsh", "fish")
_RULE_ID = re.compile(r"^\s*-\s*id:\s*([A-Za-z0-9_.-]+)\s*$", re.MULTILINE)

_BASH = """_cgconfig_complete() {
    local IFS=$'\\n'
    COMPREPLY=( $(cgconfig __complete "$COMP_CWORD" "${COMP_WORDS[@]}" 2>/dev/null) )
}
complete -o default -F _cgconfig_complete cgconfig
"""
_ZSH = "autoload -U +X bashcompinit && bashcompinit\n" + _BASH
# Where cgconfig has no candidates (a file after --deployment, --rules, `rules validate`,
# `diff`, ...), fall back to file paths, as bash's `complete -o default` does.
_FISH = """function __cgconfig_complete
    set -l words (commandline -opc) (commandline -ct)
    set -l found (cgconfig __complete (math (count $words) - 1) $words 2>/dev/null)
    if test (count $found) -gt 0
        printf '%s\\n' $found
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c cgconfig -f -a '(__cgconfig_complete)'
"""


def script(shell: str) -> str:
    """The completion script for a shell."""
    return {"bash": _BASH, "zsh": _ZSH, "fish": _FISH}[shell]


def rule_ids() -> list[str]:
    """Ids of the shipped rules, read straight from the pack files (each engine's ``rules/``)."""
    from cgconfig.rules.cache import shipped_pack_files

    ids: list[str] = []
    for path in shipped_pack_files():
        ids += _RULE_ID.findall(path.read_text(encoding="utf-8"))
    return ids


def candidates(words: list[str], cword: int) -> list[str]:
    """Completions for the word at ``cword`` of ``words`` (``words[0]`` is the program)."""
    current = words[cword] if cword < len(words) else ""
    before = words[1:cword]
    if not before:
        return [c for c in COMMANDS if c.startswith(current)]
    command = before[0]
    previous = before[-1] if len(before) > 1 else ""
    if command == "rules":
        if len(before) == 1:
            return [c for c in RULES_SUBCOMMANDS if c.startswith(current)]
        if before[1] == "show" and len(before) == 2:
            return [r for r in rule_ids() if r.startswith(current)]
        return []
    if command == "schema":
        return [s for s in SCHEMAS if s.startswith(current)] if len(before) == 1 else []
    if command == "completion":
        return [s for s in SHELLS if s.startswith(current)] if len(before) == 1 else []
    if command == "diff":
        if previous in ("-o", "--output"):
            return [f for f in ("table", "json", "yaml") if f.startswith(current)]
        if current.startswith("-"):
            return [f for f in ("--a", "--b", "--output") if f.startswith(current)]
        return []  # a plan file: the shell completes paths
    if command == "migrate" and previous == "--to":
        from cgconfig.line.registry import ROWS
        from cgconfig.line.versions import SUPPORTED

        # the engines whose releases are numbered: a migration goes from one to another
        return [f"{row.name}=={v}" for row in ROWS if row.release_from_tags
                for v in SUPPORTED[row.name] if f"{row.name}=={v}".startswith(current)]
    if command == "migrate":
        command = "resolve"  # its line is a launch line; --to and -o are its own
    if command not in ("resolve", "explain", "tune"):
        return []
    found = _flag_candidates(command, previous, current)
    if command == "tune" and current.startswith("--"):
        from cgconfig.cli.tune_cmd import OWN_FLAGS

        found = sorted({*found, *(f for f in OWN_FLAGS if f.startswith(current))})
    return found


def _flag_candidates(command: str, previous: str, current: str) -> list[str]:
    from cgconfig.cli.options import CLI_FLAGS
    from cgconfig.fields.flags import flag_index

    index = {**flag_index(), **{s: f for f in CLI_FLAGS for s in (f.name, *f.aliases)}}
    flag = index.get(previous)
    if flag is not None and flag.takes_value:
        if flag.name in ("--disable-rule", "--allow-override", "--allow"):
            return [r for r in rule_ids() if r.startswith(current)]
        if flag.choices:
            return [c for c in flag.choices if c.startswith(current)]
        return []  # a number or a file: let the shell's default completion act
    if current.startswith("-"):
        return sorted(s for s in index if s.startswith(current) and s.startswith("--"))
    if command == "explain":
        from cgconfig.fields.config import all_config_keys

        return [k for k in all_config_keys() if k.startswith(current)]
    return []


def run_complete(argv: list[str]) -> int:
    """``cgconfig __complete CWORD WORD...``: print one candidate per line."""
    if not argv or not (argv[0].isascii() and argv[0].isdigit() and len(argv[0]) <= 6):
        # "²" and "٨" pass isdigit() but not int(); shells send small ASCII numbers. The
        # scripts send stderr to /dev/null, so the line is for a person who typed it.
        from cgconfig.cli.errors import report
        from cgconfig.errors import InputError
        from cgconfig.limits import quote

        got = f"got {quote(argv[0])}" if argv else "got nothing"
        return report(InputError(f"expects CWORD, the index of the word to complete (a number "
                                 f"of at most 6 digits), then the words; {got}",
                                 where="__complete",
                                 hint="the script `cgconfig completion bash|zsh|fish` prints "
                                      "calls it"))
    cword = int(argv[0])
    sys.stdout.write("".join(c + "\n" for c in candidates(argv[1:], cword)))
    return 0
