"""The plan's one note when the model's architecture is unknown but rules read it.

A line that names a model (``--model-path``, vLLM's positional model) whose ``config.json`` is
not on this machine resolves as if no model rule applied. When some shipped rule's condition
depends on the model's facts, the plan's ``notes`` say which rules, and how to give the
architecture (``cgconfig explain`` prints the note; the ``resolve`` table shows the model's
facts as unknown with a one-line hint). Without a model path the plan is for no particular
model, and no note is added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cgconfig.facts import Facts

if TYPE_CHECKING:
    from cgconfig.draft import Draft
    from cgconfig.resolve.request import RuleSetLike

#: The words that mark the note (``cgconfig resolve`` leaves it to ``explain`` and the plan's
#: ``notes``; its table gives one short hint instead).
MARK = "and rules that read it could apply:"

#: The model facts a model's ``config.json`` would give, as rule paths.
MODEL_FACT_PATHS = ("facts.model_arch", "facts.use_mla", "facts.is_multimodal")


def unknown_model_note(facts: Facts, sources: dict[str, str], rules: RuleSetLike | None,
                       draft: Draft, disabled: list[str]) -> str | None:
    """The note, or ``None`` when the architecture is known, no model is named, or no rule
    depends on it."""
    from cgconfig.hf_cache import find_config

    if facts.model_arch is not None or not facts.model_path or rules is None:
        return None
    unknown = frozenset(p for p in MODEL_FACT_PATHS if p.split(".", 1)[1] not in sources)
    waiting = rules.undecided(draft, unknown, disabled=disabled)
    if not waiting:
        return None
    lookup = find_config(str(facts.model_path))
    looked = lookup.looked if lookup.path is None else f"{lookup.path} names no architectures"
    return (f"the architecture of {facts.model_path} is unknown ({looked}), "
            f"{MARK} {', '.join(waiting)}; give "
            "--model-arch NAME (architectures[0] of its config.json), or a local model folder, "
            "or download it into the Hugging Face cache (HF_HOME)")


def is_unknown_model_note(note: str) -> bool:
    """Whether ``note`` is the one :func:`unknown_model_note` writes."""
    return note.startswith("the architecture of ") and MARK in note
