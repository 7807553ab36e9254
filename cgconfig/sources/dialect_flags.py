"""Each non-SGLang dialect's flag table: what the splitter carves out of a command line.

Kept apart from the dialects' sources so that splitting an SGLang line imports none of them.
The per-engine flag tables (every upstream flag as data) plug in here.
"""

from __future__ import annotations

from cgconfig.sources.split import DialectFlags

#: The vLLM dialect's flags and their arity; ``-cc.KEY=VALUE`` spellings take one value.
VLLM_FLAGS = DialectFlags("vllm", {
    "--compilation-config": 1, "-cc": 1, "--enforce-eager": 0,
    "--max-num-seqs": 1, "--max-num-batched-tokens": 1,
    "--num-speculative-tokens": 1, "--speculative-config": 1,
    "--cudagraph-capture-sizes": "+", "--max-cudagraph-capture-size": 1,
    "--cudagraph-support": 1, "--vllm-attention-backend": 1,
}, prefixes=("-cc.", "--compilation-config."))

#: Flags that name a TensorRT-LLM options file.
TRTLLM_FLAGS = DialectFlags("trtllm", {"--extra-llm-api-options": 1,
                                       "--extra_llm_api_options": 1, "--trtllm-options": 1})
