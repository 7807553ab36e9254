"""Random SGLang lines written in one older release's own flags (the held-out batches of the
releases before 0.5.19).

The general generator (``generate.py``) draws SGLang 0.5.23's flags; a line for an older
release must be one its users would write: each flag the release's parser does not know (its
flag table, ``cgconfig/engines/sglang/tables/sglang-<X>.json``) is written in the spelling the
release has (:data:`OLD_SPELLINGS`: SGLang 0.5.8-0.5.13 name the decode sizes
``--cuda-graph-max-bs`` / ``--cuda-graph-bs`` and the prefill (piecewise) ones
``--piecewise-cuda-graph-max-tokens`` / ``--piecewise-cuda-graph-tokens``) or, with no such
spelling, dropped with its values. :data:`LEGACY_DRAWS` adds the release's own graph switches.
"""

from __future__ import annotations

import random
from typing import Any

from cgconfig.line.table import load_table
from cgconfig.line.tokens import is_option

#: A newer flag → the spelling an older release has for the same setting (its
#: ``ServerArgs.add_cli_args``), used when the release lacks the newer one.
OLD_SPELLINGS: dict[str, str] = {
    "--cuda-graph-max-bs-decode": "--cuda-graph-max-bs",
    "--cuda-graph-bs-decode": "--cuda-graph-bs",
    "--cuda-graph-max-bs-prefill": "--piecewise-cuda-graph-max-tokens",
    "--cuda-graph-bs-prefill": "--piecewise-cuda-graph-tokens",
    "--disable-prefill-cuda-graph": "--disable-piecewise-cuda-graph",
}

#: The pre-0.5.19 graph switches a user of those releases writes (drawn when the release has
#: them): the legacy decode sizes, the piecewise prefill graph's own flags, torch.compile.
LEGACY_DRAWS: tuple[tuple[str, ...], ...] = (
    ("--cuda-graph-max-bs", "64"), ("--cuda-graph-max-bs", "300"), ("--cuda-graph-max-bs", "8"),
    ("--cuda-graph-bs", "1", "2", "8", "24"), ("--enable-piecewise-cuda-graph",),
    ("--disable-piecewise-cuda-graph",), ("--enforce-piecewise-cuda-graph",),
    ("--piecewise-cuda-graph-max-tokens", "2048"), ("--piecewise-cuda-graph-max-tokens", "600"),
    ("--piecewise-cuda-graph-tokens", "4", "64", "512"), ("--disable-cuda-graph",),
    ("--enable-torch-compile",), ("--torch-compile-max-bs", "16"),
    ("--cuda-graph-backend-prefill", "tc_piecewise"), ("--cuda-graph-backend-prefill", "breakable"),
    ("--enable-breakable-cuda-graph",), ("--disable-cuda-graph-padding",),
)


def option_groups(argv: list[str]) -> list[list[str]]:
    """The line as option groups: each option with the values after it."""
    groups: list[list[str]] = []
    for word in argv:
        if is_option(word, "argparse") or not groups:
            groups.append([word])
        else:
            groups[-1].append(word)
    return groups


def in_release_flags(argv: list[str], release: str) -> list[str]:
    """``argv`` in ``release``'s own flags: a flag it lacks in its old spelling, or dropped."""
    table = load_table("sglang", release)
    out: list[str] = []
    for group in option_groups(argv):
        flag = group[0].split("=", 1)[0]
        if table.lookup(flag) is None:
            old = OLD_SPELLINGS.get(flag)
            if old is None or table.lookup(old) is None or old in out:
                continue
            group = [old, *group[1:]]
        out += group
    return out


def release_case(case: dict[str, Any], release: str, rng: random.Random) -> dict[str, Any]:
    """``case`` rewritten into ``release``'s flags, with one or two of its own graph switches
    (:data:`LEGACY_DRAWS`) on about half the lines."""
    argv = in_release_flags(case["argv"], release)
    if rng.random() < 0.5:
        table = load_table("sglang", release)
        for words in rng.sample(LEGACY_DRAWS, rng.randint(1, 2)):
            if table.lookup(words[0]) is not None and words[0] not in argv:
                argv += list(words)
    return {**case, "argv": argv, "engine_version": release}
