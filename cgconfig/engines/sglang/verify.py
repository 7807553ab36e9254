"""SGLang's side of ``cgconfig verify`` (the plug-in parts ``expected_groups``, ``step_sizes``,
``eager_flags``, ``launch_entry``, ``launch_model``, ``old_spelling``): what its log shows it
captured, which list covers a step, the flag that bounds each phase, and how its printed
``server_args`` go back into a launch line.
"""

from __future__ import annotations

from typing import Any

from cgconfig.plan import Plan
from cgconfig.verify.compare import Expected

#: ``python -m sglang.launch_server``: the launch line a log's ``server_args`` are read into.
LAUNCH_ENTRY = ("python", "-m", "sglang.launch_server")
#: The flag that bounds each phase's graphs, in requests (decode) and tokens (prefill).
EAGER_FLAGS = {"decode": "--cuda-graph-max-bs-decode", "prefill": "--cuda-graph-max-bs-prefill"}


def expected_groups(plan: Plan, argv: list[str]) -> list[Expected]:
    """SGLang logs each phase's capture as one group: decode, prefill."""
    del argv  # the plan's lists are what SGLang captures
    return [Expected(phase, phase, plan.backend(phase), plan.capture_sizes(phase))
            for phase in ("decode", "prefill")
            if plan.backend(phase) != "disabled" and plan.capture_sizes(phase)]


#: The capture list a logged step of a phase replays from: that phase's own.
step_sizes = Plan.capture_sizes


def launch_model(args: dict[str, Any]) -> tuple[list[str], frozenset[str]]:
    """The model is a flag (``--model-path``), written with the others: no positional."""
    del args
    return [], frozenset()


def old_spelling(spelling: str, value: Any) -> list[str] | None:
    """A printed argument an older release had and cgconfig still reads (a deprecated alias),
    as its replacement's words, which every supported release reads; ``None`` for a name
    cgconfig does not know."""
    from cgconfig.fields.flags import flag_index, known_spellings
    from cgconfig.verify.launch import flag_words

    if spelling not in known_spellings():
        return None
    if value is None or value is False:
        return []
    flag = flag_index().get(spelling)
    words = (flag.replacement or "").split() if flag is not None else []
    if len(words) == 1:
        return flag_words(words[0], 0 if value is True else None, value)
    if len(words) == 2 and value is True:
        return words
    return flag_words(spelling, 0 if value is True else None, value)
