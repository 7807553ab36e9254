"""Input dialects: read vLLM and TensorRT-LLM style flags into cgconfig requests.

SGLang's flags are cgconfig's own. A dialect turns another engine's flags into leaves (explicit,
locking values with their origin), dialect defaults (that engine's size grid) and hooks (that
engine's own downgrade logic), so the plan and ``explain`` look the same whatever the input.
"""

from __future__ import annotations

DIALECTS = ("sglang", "vllm", "trtllm")

#: Flags that only the vLLM dialect reads → whether they take a value.
VLLM_FLAGS: dict[str, bool] = {
    "--compilation-config": True, "-cc": True, "--enforce-eager": False,
    "--max-num-seqs": True, "--max-num-batched-tokens": True,
    "--num-speculative-tokens": True, "--speculative-config": True,
    "--cudagraph-capture-sizes": True, "--max-cudagraph-capture-size": True,
    "--cudagraph-support": True, "--vllm-attention-backend": True,
}
#: Flags that name a TensorRT-LLM options file.
TRTLLM_FLAGS = ("--extra-llm-api-options", "--extra_llm_api_options", "--trtllm-options")


def is_vllm_flag(name: str) -> bool:
    """Whether a flag spelling belongs to the vLLM dialect (``-cc.x`` included)."""
    return name in VLLM_FLAGS or name.startswith(("-cc.", "--compilation-config."))


def detect_dialect(argv: list[str]) -> str:
    """The dialect an argv is written in: ``--dialect`` if given, else guessed from its flags."""
    for i, token in enumerate(argv):
        if token == "--dialect" and i + 1 < len(argv):
            return argv[i + 1]
        if token.startswith("--dialect="):
            return token.split("=", 1)[1]
    for token in argv:
        name = token.split("=", 1)[0]
        if is_vllm_flag(name):
            return "vllm"
        if name in TRTLLM_FLAGS:
            return "trtllm"
    return "sglang"
