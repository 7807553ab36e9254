"""Read the GPU's memory from ``nvidia-smi`` without importing torch.

Launch scripts call the resolver before the engine starts; importing torch to ask for memory
would cost seconds. ``nvidia-smi`` answers in well under a second when a driver is present; a
missing binary or a slow answer means "unknown", and the unknown tier applies.
"""

from __future__ import annotations

import os

PROBE_TIMEOUT_S = 2.0
DISABLE_ENV = "CGCONFIG_NO_GPU_PROBE"


def probe_gpu_memory_gib(timeout_s: float = PROBE_TIMEOUT_S) -> tuple[float | None, str]:
    """Memory of GPU 0 in GiB and how it was found; ``(None, reason)`` when unknown."""
    if os.environ.get(DISABLE_ENV):
        return None, f"unknown ({DISABLE_ENV} is set)"
    import shutil
    import subprocess

    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None, "unknown (nvidia-smi not found)"
    try:
        done = subprocess.run(
            [exe, "--query-gpu=memory.total", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=timeout_s, check=False,
        )
    except (subprocess.TimeoutExpired, OSError):
        return None, f"unknown (nvidia-smi did not answer within {timeout_s:g}s)"
    first = done.stdout.strip().splitlines()[:1]
    if done.returncode != 0 or not first:
        return None, "unknown (nvidia-smi gave no memory reading)"
    try:
        mib = float(first[0].strip())
    except ValueError:
        return None, f"unknown (nvidia-smi printed {first[0]!r})"
    return round(mib / 1024, 2), "nvidia-smi"
