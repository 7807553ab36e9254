"""What the file around a launch says of it: the document kind, container, role, env, image."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Context:
    """What the file around a script says of its launches (a container's name, role, env)."""

    path: str
    kind: str
    env: dict[str, str] = field(default_factory=dict)
    """The container's literal environment (shell variables the script starts with)."""
    container: str | None = None
    role: str | None = None
    engine_version: str | None = None
    version_origin: str | None = None
    gpu_count: int | None = None
    gpu_kind: str | None = None
    notes: tuple[str, ...] = ()
    image: str | None = None
    """The container image, whose tag may name the engine's release."""
    image_line: int = 0
    release: str | None = None
    """A platform release the file names (Dynamo's), mapped to the engine's by its matrix."""
