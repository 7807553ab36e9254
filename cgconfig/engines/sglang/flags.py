"""SGLang's flags on a line (the plug-in parts ``dialect_flags`` and ``entry_only_flags``):
SGLang is the host dialect, so its words are the ones no dialect table claims, read with
cgconfig's own flag table (``cgconfig.fields.flags``) and SGLang's parser rules.
"""

from __future__ import annotations

DIALECT_FLAGS = None
ENTRY_ONLY_FLAGS: dict[str, int] = {}

#: Attention backends that run on one platform only, and that platform (SGLang 0.5.23
#: ``layers/attention/attention_registry.py``: aiter and wave build on ROCm kernels,
#: ascend on ``hardware_backend/npu``, intel_xpu on the XPU kernels). ``intel_amx`` (CPU) is
#: left out: SGLang picks the CPU from ``--device cpu``, and rule examples use it as a
#: capability-NEVER backend on GPUs. Read by ``cgconfig.sources.machine`` on every line.
BACKEND_PLATFORMS: dict[str, str] = {
    "aiter": "hip", "wave": "hip", "ascend": "npu", "intel_xpu": "xpu",
}
#: No ``-O.KEY`` spelling of a compilation config (``plugins.PARTS``).
dotted_o_is_cc = None
short_o_key = None
migrate_support = None
