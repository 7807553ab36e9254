"""SGLang's flags on a line (the plug-in parts ``dialect_flags`` and ``entry_only_flags``):
SGLang is the host dialect, so its words are the ones no dialect table claims, read with
cgconfig's own flag table (``cgconfig.fields.flags``) and SGLang's parser rules.
"""

from __future__ import annotations

DIALECT_FLAGS = None
ENTRY_ONLY_FLAGS: dict[str, int] = {}
