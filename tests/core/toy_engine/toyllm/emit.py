"""``--emit toyllm``: the largest captured batch as ``--max-batch-size``."""

from __future__ import annotations

from typing import Any

from cgconfig.emit_keys import unsaid
from cgconfig.plan import Plan


def emit_text(plan: Plan, user_config: dict[str, Any] | None) -> tuple[str, list[str]]:
    del user_config
    sizes = plan.capture_sizes("decode")
    notes = [text for _, text in unsaid(plan, "toyllm", "{key}={value!r}: no ToyLLM flag")]
    return f"--max-batch-size {max(sizes) if sizes else 0}", notes
