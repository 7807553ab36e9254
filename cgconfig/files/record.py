"""The record of one engine launch found in a deployment file (re-exported by
:mod:`cgconfig.files.launch`, where callers import it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Launch:
    """One engine launch found in a file."""

    file: str
    """The path as given (``"-"`` for stdin)."""
    line: int
    """1-based line of the command's first word."""
    argv: tuple[str, ...]
    """Words as the engine's process receives them, entry point first, variables substituted
    where known."""
    arg_lines: tuple[int, ...]
    """Same length as ``argv``: the 1-based file line each word came from."""
    env: tuple[tuple[str, str], ...]
    """The container's / statement's environment (literal values only)."""
    kind: str
    """Document kind read: ``"dynamo-dgd-v1alpha1"``, ``"dynamo-dgd-v1beta1"``, ``"lws"``,
    ``"disaggregatedset"``, ``"ome-runtime"``, ``"k8s-deployment"``, ``"helm-production-stack"``,
    ``"compose"``, ``"skypilot"``, ``"srt-slurm"``, ``"shell"``, ``"markdown"``, ..."""
    container: str | None = None
    """Container / service / component / task name."""
    role: str | None = None
    """``"prefill"`` | ``"decode"`` | ``None``."""
    engine_version: str | None = None
    """``"sglang==0.5.18"`` etc. when the file pins it (image tag, pip pin, Dynamo matrix)."""
    version_origin: str | None = None
    """Where the version came from, e.g. ``"image lmsysorg/sglang:v0.5.18 (lws.yaml:21)"``."""
    gpu_count: int | None = None
    """GPUs the container asks for (``resources.limits["nvidia.com/gpu"]``, accelerators)."""
    gpu_kind: str | None = None
    """The GPU the file names (``H100``, ``gb200``...), as written."""
    unresolved: tuple[str, ...] = ()
    """Variable names left unresolved in ``argv``."""
    notes: tuple[str, ...] = ()
    """What the reader did that the user should know (a mapped entry point, a followed file)."""
    unresolved_at: tuple[int, ...] = ()
    """Indices into ``argv`` of the words that still hold an unresolved variable."""
    files: tuple[tuple[str, str], ...] = ()
    """(name, text) of files the script wrote before the launch (``cat > F << EOF``), read in
    place of the disk when the engine's ``--config`` names them."""

    @property
    def label(self) -> str:
        """``FILE:LINE`` of the command, as plans and errors name it."""
        return f"{self.file}:{self.line}"
