"""Input dialects: read vLLM and TensorRT-LLM style flags into cgconfig requests.

SGLang's flags are cgconfig's own. A dialect turns another engine's flags into leaves (explicit,
locking values with their origin), dialect defaults (that engine's size grid) and hooks (that
engine's own downgrade logic), so the plan and ``explain`` look the same whatever the input.
"""

from __future__ import annotations

DIALECTS = ("sglang", "vllm", "trtllm")


def detect_dialect(argv: list[str]) -> str:
    """The dialect an argv is written in: ``--dialect`` if given, else guessed from its flags."""
    from cgconfig.dialects.trtllm import TRTLLM_FLAGS
    from cgconfig.dialects.vllm import is_vllm_flag

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
