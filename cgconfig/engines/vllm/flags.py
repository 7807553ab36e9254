"""The vLLM dialect's own flags, as the splitter carves them out of a line (the plug-in parts
``dialect_flags`` and ``entry_only_flags``). Data only: splitting any line reads it.
"""

from __future__ import annotations

from types import ModuleType

from cgconfig.line.split import Arity, DialectFlags

#: The vLLM dialect's flags and their arity; ``-cc.KEY=VALUE`` spellings take one value.
DIALECT_FLAGS = DialectFlags("vllm", {
    "--compilation-config": 1, "-cc": 1, "--enforce-eager": 0,
    "--max-num-seqs": 1, "--max-num-batched-tokens": 1,
    "--num-speculative-tokens": 1, "--speculative-config": 1,
    "--cudagraph-capture-sizes": "+", "--max-cudagraph-capture-size": 1,
    "--cuda-graph-sizes": "+",  # vLLM 0.12.0's deprecated spelling (releases.CUDA_GRAPH_SIZES)
    "--cudagraph-support": 1, "--vllm-attention-backend": 1,
    "-O": 1,  # vLLM 0.11.2's short --compilation-config (releases.OPTIMIZATION_LEVELS)
}, prefixes=("-cc.", "--compilation-config.", "--speculative-config.", "-O."))
#: The compilation config's single-dash spellings: each release's own table says which it has
#: (``-cc`` from 0.12.0, ``-O`` before), so the spelling check reads them in every release.
SHORT_CC_FLAGS = ("-cc", "-O")
#: None beyond the dialect's own: a `vllm serve` line's other flags are the engine table's.
ENTRY_ONLY_FLAGS: dict[str, Arity] = {}

#: No attention backend of this dialect names a platform (``plugins.PARTS``).
BACKEND_PLATFORMS = None


def dotted_o_is_cc(release: str) -> bool:
    """Whether vLLM ``release``'s parser rewrites ``-O.KEY`` to ``-cc.KEY``
    (compile_changes.DOTTED_O_IS_COMPILATION_CONFIG; the plug-in part ``dotted_o_is_cc``)."""
    from cgconfig.engines.release_change import holds_in
    from cgconfig.engines.vllm.compile_changes import DOTTED_O_IS_COMPILATION_CONFIG

    return holds_in(DOTTED_O_IS_COMPILATION_CONFIG, release)


def short_o_key(release: str) -> str:
    """The compilation-config key vLLM ``release``'s parser rewrites ``-O<n>`` to where ``-O`` is
    ``--compilation-config`` (``mode``; vLLM 0.10.2 ``level``:
    compile_changes.COMPILATION_MODE_FIELD; the plug-in part ``short_o_key``)."""
    from cgconfig.engines.release_change import holds_in
    from cgconfig.engines.vllm.compile_changes import COMPILATION_MODE_FIELD

    return "mode" if holds_in(COMPILATION_MODE_FIELD, release) else "level"


def migrate_support() -> ModuleType:
    """vLLM 0.10.2's migrate rewrites (:mod:`.migrate_0_10`; the plug-in part
    ``migrate_support``), imported only when ``cgconfig migrate`` runs."""
    from cgconfig.engines.vllm import migrate_0_10

    return migrate_0_10
