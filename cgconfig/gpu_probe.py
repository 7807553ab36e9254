"""Read the GPUs' memory, compute capability and count from ``nvidia-smi`` or ``rocm-smi``.

Launch scripts call the resolver before the engine starts; importing torch to ask the driver
would cost seconds. The vendor tools answer in well under a second when a driver is present; a
missing binary, an error or a slow answer (over :data:`PROBE_TIMEOUT_S`) means "unknown", and the
plan says why. Both tools go through one code path (:func:`probe_gpu`); tests inject the command
runner (``run``) and the binary lookup (``which``), so no real binary is needed.

The probe runs at most once per platform in a process: GPUs do not change under a launcher.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from cgconfig.errors import InputError
from cgconfig.fields.values import read_float, read_int

PROBE_TIMEOUT_S = 2.0
#: Largest memory reading taken as real (1 TiB per GPU, in MiB) and largest compute capability:
#: a tool printing more is read as "unknown", never as a number.
MAX_GPU_MIB = 1 << 20
MAX_SM = 100.0
DISABLE_ENV = "CGCONFIG_NO_GPU_PROBE"

#: ``run(argv, timeout_s) -> (exit status, stdout)``; raises ``OSError`` or ``TimeoutError``.
Runner = Callable[[list[str], float], tuple[int, str]]
Which = Callable[[str], "str | None"]


class GpuReading(NamedTuple):
    """What the vendor tool said about the machine's GPUs (GPU 0 for memory and SM)."""

    memory_gib: float | None
    sm: int | None
    """Compute capability ×10 (``9.0`` → 90); NVIDIA only."""
    gpu_count: int | None
    source: str
    """The tool that answered (``nvidia-smi``), or ``unknown (why)``."""


def run_tool(argv: list[str], timeout_s: float) -> tuple[int, str]:
    """Run a vendor tool with a hard time bound; the default :data:`Runner`."""
    import subprocess

    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s,
                              check=False)
    except subprocess.TimeoutExpired:
        raise TimeoutError(argv[0]) from None
    return done.returncode, done.stdout


def _shown(text: str) -> str:
    from cgconfig.limits import quote

    return quote(text, 60)


def _unknown(why: str) -> GpuReading:
    return GpuReading(None, None, None, f"unknown ({why})")


def _nvidia(exe: str, run: Runner, timeout_s: float) -> GpuReading:
    """``nvidia-smi --query-gpu=memory.total,compute_cap``: one CSV line per GPU (MiB, ``9.0``).
    Drivers older than 510 lack ``compute_cap``: then memory alone is asked for."""
    fields = "memory.total,compute_cap"
    code, out = run([exe, f"--query-gpu={fields}", "--format=csv,noheader,nounits"], timeout_s)
    if code != 0:
        fields = "memory.total"
        code, out = run([exe, f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
                        timeout_s)
    rows = [line.split(",") for line in out.strip().splitlines() if line.strip()]
    if code != 0 or not rows:
        return _unknown("nvidia-smi gave no memory reading")
    try:
        mib = read_float(rows[0][0], "nvidia-smi", positive=True, maximum=MAX_GPU_MIB)
    except InputError:
        return _unknown(f"nvidia-smi printed {_shown(out.strip().splitlines()[0])}")
    try:
        sm = (round(read_float(rows[0][1], "nvidia-smi", positive=True, maximum=MAX_SM) * 10)
              if len(rows[0]) > 1 else None)
    except InputError:  # "[N/A]" on some virtualised GPUs: the memory still counts
        sm = None
    return GpuReading(round(mib / 1024, 2), sm, len(rows), "nvidia-smi")


def _rocm(exe: str, run: Runner, timeout_s: float) -> GpuReading:
    """``rocm-smi --showmeminfo vram --json``: ``{"card0": {"VRAM Total Memory (B)": "…"}}``.
    AMD GPUs have no compute capability in NVIDIA's sense: the SM stays unknown."""
    from cgconfig.docio import loads_bounded

    code, out = run([exe, "--showmeminfo", "vram", "--json"], timeout_s)
    try:
        # Some versions print warnings before the JSON document.
        data = loads_bounded(out[out.find("{"):] if "{" in out else out, "rocm-smi")
    except (ValueError, InputError):
        data = None
    cards = sorted(k for k in data if k.startswith("card")) if isinstance(data, dict) else []
    if code != 0 or not cards:
        return _unknown("rocm-smi gave no memory reading")
    first = data[cards[0]]
    text = first.get("VRAM Total Memory (B)") if isinstance(first, dict) else None
    try:
        total = read_int(str(text), "rocm-smi", minimum=1, maximum=MAX_GPU_MIB * 1024**2)
    except InputError:
        return _unknown(f"rocm-smi printed {_shown(str(text))} for the VRAM total")
    return GpuReading(round(total / 1024**3, 2), None, len(cards), "rocm-smi")


#: The vendor tool of each platform that has one, and how to read it.
PROBES: dict[str, tuple[str, Callable[[str, Runner, float], GpuReading]]] = {
    "cuda": ("nvidia-smi", _nvidia),
    "hip": ("rocm-smi", _rocm),
}


def probe_gpu(platform: str, *, run: Runner | None = None, which: Which | None = None,
              timeout_s: float = PROBE_TIMEOUT_S) -> GpuReading:
    """The GPUs of ``platform`` as its vendor tool reports them; unknown (with the reason) when
    probing is off, the platform has no tool, the tool is missing, slow or says nothing."""
    if platform not in PROBES:
        return _unknown(f"no probe for device {platform}")
    if os.environ.get(DISABLE_ENV):
        return _unknown(f"{DISABLE_ENV} is set")
    if run is None and which is None:
        return _probe_once(platform, timeout_s)
    return _probe(platform, run or run_tool, which or shutil.which, timeout_s)


@lru_cache(maxsize=8)
def _probe_once(platform: str, timeout_s: float) -> GpuReading:
    return _probe(platform, run_tool, shutil.which, timeout_s)


def _probe(platform: str, run: Runner, which: Which, timeout_s: float) -> GpuReading:
    tool, read = PROBES[platform]
    exe = which(tool)
    if exe is None:
        return _unknown(f"{tool} not found")
    try:
        return read(exe, run, timeout_s)
    except TimeoutError:
        return _unknown(f"{tool} did not answer within {timeout_s:g}s")
    except OSError as exc:
        return _unknown(f"{tool} could not run: {exc.strerror or exc}")
