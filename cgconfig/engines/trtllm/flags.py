"""The TensorRT-LLM dialect's own flags, as the splitter carves them out of a line (the plug-in
parts ``dialect_flags`` and ``entry_only_flags``). Data only: splitting any line reads it.
"""

from __future__ import annotations

from cgconfig.line.split import Arity, DialectFlags

#: Flags that name a TensorRT-LLM options file.
DIALECT_FLAGS = DialectFlags("trtllm", {"--extra-llm-api-options": 1,
                                       "--extra_llm_api_options": 1, "--trtllm-options": 1})

#: Flags a dialect's source reads only on a line with an entry point (trtllm-serve's own
#: ``--config`` names the same options file as ``--extra_llm_api_options``; its max batch
#: size and token budget bound the captured list; ``--backend`` picks the runtime).
ENTRY_ONLY_FLAGS: dict[str, Arity] = {
    "--config": 1, "--max_batch_size": 1, "--max_num_tokens": 1, "--backend": 1}

#: No attention backend of this dialect names a platform (``plugins.PARTS``).
BACKEND_PLATFORMS = None
#: No ``-O.KEY`` spelling of a compilation config (``plugins.PARTS``).
dotted_o_is_cc = None
short_o_key = None
migrate_support = None
