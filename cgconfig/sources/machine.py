"""The machine a line runs on: its platform (given, or inferred from a platform-only attention
backend) and its GPUs (given, or probed with ``nvidia-smi`` / ``rocm-smi``), as facts.

SGLang never reads the platform from a flag: 0.5.23's ``utils/common.py:get_device`` and
``runtime_context.get_platform`` detect it from the installed torch and drivers. A line that
names ``--attention-backend aiter`` was therefore written for ROCm: SGLang registers that
backend (``layers/attention/attention_registry.py:create_aiter_backend``) on the aiter kernels,
which exist only on ROCm. Without ``--device``, cgconfig reads the platform from such a backend,
where the engine would have found it on the machine; with ``--device``, the device stands and
a contradicting backend is a note (SGLang fails to build it at start-up).

This is a source, gathered right after the SGLang flags and before the dialect's source: the
probe needs the platform (which tool to ask), and vLLM's default capture grid reads the probed
compute capability (1024 on the SM100 family) while its source contributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from cgconfig.errors import InputError
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.contribution import Contribution

#: Platform names as the plan says them.
PLATFORM_NAMES: dict[str, str] = {
    "cuda": "CUDA", "hip": "ROCm", "npu": "Ascend NPU", "xpu": "Intel XPU", "cpu": "CPU",
    "mps": "Apple MPS", "hpu": "Intel Gaudi HPU", "musa": "Moore Threads MUSA",
}

#: The attention facts whose backend names a platform, with their flags.
ATTENTION_FACTS = ("attention_backend", "prefill_attention_backend", "decode_attention_backend")

#: Facts the GPU probe fills when nobody gave them.
PROBED_FACTS = ("gpu_memory_gib", "gpu_sm", "gpu_count")
#: The machine's facts, given or found here: its platform (``--device``, which no engine reads
#: from a flag: they detect it) and its GPUs. They describe the machine, not an engine's
#: arguments, so every line takes them.
MACHINE_FACTS = ("device", *PROBED_FACTS)


def backend_platforms() -> dict[str, str]:
    """The attention backends that name a platform: the host dialect's part
    ``backend_platforms`` (its words carry the attention-backend flags on every line)."""
    from cgconfig.line import registry
    from cgconfig.line.plugins import part

    return dict(part(registry.host(), "backend_platforms") or {})


def _flag(name: str, sources: dict[str, str]) -> str:
    return sources.get(name, "--" + name.replace("_", "-"))


class PlatformReading(NamedTuple):
    """What the attention backends say about the platform."""

    platform: str | None = None
    """The inferred platform, when ``--device`` did not give one."""
    why: str = ""
    note: str | None = None
    """Set when ``--device`` names another platform than a backend runs on."""


def infer_platform(facts: dict[str, Any], sources: dict[str, str],
                   release: str) -> PlatformReading:
    """The platform a platform-only attention backend names, when ``--device`` does not say.

    An explicit ``--device`` is the machine, as for SGLang, whose resolution takes the line as
    given on any platform and fails only when it builds the backend at start-up: the plan keeps
    the device and carries a note. Without ``--device``, backends naming two platforms are an
    :class:`InputError` (no machine runs that line). ``release`` (``SGLang 0.5.20``) is the
    release the note names.
    """
    implied: dict[str, str] = {}
    platform_of_backend = backend_platforms()
    for name in ATTENTION_FACTS:
        platform = platform_of_backend.get(str(facts.get(name)))
        if platform is not None:
            implied.setdefault(platform, f"{_flag(name, sources)} {facts[name]}")
    device = facts.get("device")
    if device is not None:
        device_flag = _flag("device", sources)
        clashes = [f"{why} runs only on {PLATFORM_NAMES[p]} ({p})"
                   for p, why in sorted(implied.items()) if p != device]
        if not clashes:
            return PlatformReading()
        hint = (f"; on a ROCm machine say {device_flag} hip (torch calls ROCm GPUs cuda)"
                if device == "cuda" and "hip" in implied else "")
        return PlatformReading(note=f"{'; '.join(clashes)}: {release} resolves "
                                    f"the line on {device} ({device_flag}) and then fails to "
                                    f"build that backend at start-up{hint}")
    if len(implied) > 1:
        (p1, w1), (p2, w2) = sorted(implied.items())[:2]
        raise InputError(f"{w1} runs only on {PLATFORM_NAMES[p1]} ({p1}) but {w2} only on "
                         f"{PLATFORM_NAMES[p2]} ({p2})", where=w2.split()[0],
                         hint="one server runs on one platform: choose backends of one, or "
                              "give --device")
    if not implied:
        return PlatformReading()
    platform, why = next(iter(implied.items()))
    return PlatformReading(platform, f"inferred from {why}")


@dataclass
class MachineFacts:
    """The platform and the GPUs: what the earlier sources gave, completed by inference and
    by the vendor tool's probe."""

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """The inferred platform (if any) and the probed GPU facts nobody gave."""
        from cgconfig.gpu_probe import probe_gpu

        out = Contribution()
        from cgconfig.line import registry
        from cgconfig.line.versions import release_label

        chosen = so_far.engine_version
        reading = infer_platform(so_far.facts, so_far.fact_sources,
                                 release_label(chosen.engine if chosen else registry.host(),
                                               chosen))
        platform = so_far.facts.get("device", "cuda")
        if reading.platform is not None:
            platform = out.facts["device"] = reading.platform
            out.fact_sources["device"] = reading.why
        if reading.note:
            out.notes.append(reading.note)
        missing = [name for name in PROBED_FACTS if so_far.facts.get(name) is None]
        if not missing or not isinstance(platform, str):
            return out
        gpus = probe_gpu(platform)
        for name, value in (("gpu_memory_gib", gpus.memory_gib), ("gpu_sm", gpus.sm),
                            ("gpu_count", gpus.gpu_count)):
            if name in missing and value is not None:
                out.facts[name], out.fact_sources[name] = value, gpus.source
        return out
