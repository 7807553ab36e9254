"""ToyLLM's dialect flags (the parts ``dialect_flags`` and ``entry_only_flags``)."""

from __future__ import annotations

from cgconfig.line.split import Arity, DialectFlags

#: ``--toy-max-batch-size`` on a line of cgconfig's flags (``--dialect toyllm``).
DIALECT_FLAGS = DialectFlags("toyllm", {"--toy-max-batch-size": 1})
#: Read only on a ``toyllm serve`` line.
ENTRY_ONLY_FLAGS: dict[str, Arity] = {"--max-batch-size": 1}

#: No attention backend of this dialect names a platform (``plugins.PARTS``).
BACKEND_PLATFORMS = None
