"""A TensorRT-LLM LLM-API options file standing alone (a recipe collection's reference
config, such as TensorRT-LLM's own ``examples/configs``): the launch it is written for is
``trtllm-serve MODEL --extra_llm_api_options FILE``, which is what is checked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch

#: Top-level keys of TensorRT-LLM's ``LlmArgs`` that mark an options file
#: (``tensorrt_llm/llmapi/llm_args.py``); a file with ``cuda_graph_config`` or two of the
#: others is one.
GRAPH_KEY = "cuda_graph_config"
LLM_ARGS_KEYS = frozenset(("max_batch_size", "max_num_tokens", "kv_cache_config",
                           "speculative_config", "enable_attention_dp", "moe_config",
                           "torch_compile_config", "max_seq_len", "attention_dp_config",
                           "moe_expert_parallel_size", "stream_interval"))


def is_options_file(data: Any) -> bool:
    """Whether a YAML document reads as a TensorRT-LLM LLM-API options file."""
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        return False
    return GRAPH_KEY in data or len(LLM_ARGS_KEYS & set(data)) >= 2


def options_launch(path: str, text: str) -> list[Launch]:
    """The ``trtllm-serve`` launch an options file is written for, or none: the options flag
    sits at the file's ``max_batch_size`` line (the running bound), the file's name at its
    ``cuda_graph_config`` line."""
    from cgconfig.docio import load_yaml_text
    from cgconfig.errors import InputError
    from cgconfig.files.launch import Launch

    if path == "-":
        return []
    try:
        data, lines = load_yaml_text(text, path)
    except InputError:
        return []
    if not is_options_file(data):
        return []
    first = min(lines.values(), default=1)
    bound_line = lines.get(("max_batch_size",), first)
    graph_line = lines.get((GRAPH_KEY,), bound_line)
    return [Launch(file=path, line=first, argv=("trtllm-serve", "MODEL",
                                                "--extra_llm_api_options", path),
                   arg_lines=(first, first, bound_line, graph_line), env=(),
                   kind="trtllm-options",
                   notes=("checked as trtllm-serve MODEL --extra_llm_api_options FILE",))]
