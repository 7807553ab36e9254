"""``cgconfig check``'s configuration: ``.cgconfig.toml`` (top-level keys) or the
``[tool.cgconfig]`` table of ``pyproject.toml``, the first found from the working folder up.
Unknown keys and values are refused in one line with a did-you-mean (exit 2)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from cgconfig.errors import InputError, did_you_mean
from cgconfig.lint.catalog import SEVERITIES, Severity, lookup, names

#: Every key the configuration takes.
KEYS = ("severity", "ignore", "engine-versions", "exclude", "fail-on", "newest",
        "gpu-memory-gib")
#: How far up from the working folder a configuration file is looked for.
MAX_PARENTS = 64


@dataclass
class CheckSettings:
    """What the configuration file sets (each also has a command-line flag)."""

    severity: dict[str, Severity] = field(default_factory=dict)
    """Finding id → severity, over the catalogue's default."""
    ignore: set[str] = field(default_factory=set)
    """Finding ids never reported."""
    engine_versions: dict[str, str] = field(default_factory=dict)
    """Engine → the release for launches whose file pins none (``sglang = "VERSION"``)."""
    exclude: list[str] = field(default_factory=list)
    """Paths never read (gitignore patterns, from the working folder)."""
    fail_on: Severity | None = None
    newest: bool = False
    gpu_memory_gib: float | None = None
    """GPU memory for launches that do not say (SGLang's default sizes depend on it)."""
    source: str | None = None
    """The file it was read from."""


def find_config(start: str = ".") -> tuple[str, dict[str, Any]] | None:
    """The nearest configuration: (path, its table), or ``None``."""
    folder = os.path.abspath(start)
    for _ in range(MAX_PARENTS):
        own = os.path.join(folder, ".cgconfig.toml")
        if os.path.isfile(own) and not os.path.islink(own):
            return _shown(own), _load(own)
        project = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(project) and not os.path.islink(project):
            table = _load(project).get("tool", {}).get("cgconfig")
            if isinstance(table, dict):
                return _shown(project) + " [tool.cgconfig]", table
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


def _shown(path: str) -> str:
    """``path`` relative to the working folder when it lies under it (as error lines name it)."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _load(path: str) -> dict[str, Any]:
    from cgconfig.docio import read_text_file

    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    text = read_text_file(path, "configuration")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"not valid TOML: {error}", where=path) from None
    return data


def parse_settings(table: dict[str, Any], where: str) -> CheckSettings:
    """Check every key and value of a configuration table."""
    out = CheckSettings(source=where)
    for key, value in table.items():
        if key not in KEYS:
            raise InputError(f"unknown key {key!r}", where=where, allowed=KEYS,
                             suggestion=did_you_mean(str(key), KEYS))
        at = f"{where} {key}"
        if key == "severity":
            for kid, level in _table(value, at).items():
                out.severity[_kind(kid, at)] = parse_severity(level, f"{at}.{kid}")
        elif key == "ignore":
            out.ignore = {_kind(k, at) for k in _strings(value, at)}
        elif key == "engine-versions":
            from cgconfig.line.versions import SUPPORTED

            for engine, version in _table(value, at).items():
                if engine not in SUPPORTED:
                    raise InputError(f"unknown engine {engine!r}", where=at, allowed=SUPPORTED,
                                     suggestion=did_you_mean(engine, SUPPORTED))
                if not isinstance(version, str):
                    raise InputError(f"expected a release as text, got {version!r}",
                                     where=f"{at}.{engine}")
                out.engine_versions[engine] = version
        elif key == "exclude":
            out.exclude = _strings(value, at)
        elif key == "fail-on":
            out.fail_on = parse_severity(value, at)
        elif key == "newest":
            if not isinstance(value, bool):
                raise InputError(f"expected true or false, got {value!r}", where=at)
            out.newest = value
        elif key == "gpu-memory-gib":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise InputError(f"expected a positive number, got {value!r}", where=at)
            out.gpu_memory_gib = float(value)
    return out


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"expected a table, got {type(value).__name__}", where=where)
    return value


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("expected a list of strings", where=where)
    return list(value)


def _kind(text: str, where: str) -> str:
    kind = lookup(text)
    if kind is None:
        raise InputError(f"unknown finding {text!r}", where=where, allowed="CG001..CG014",
                         suggestion=did_you_mean(text, names()))
    return kind.id


def parse_severity(value: Any, where: str) -> Severity:
    """``value`` as a severity (``error``, ``warning``, ``note``), else one error line."""
    if value not in SEVERITIES:
        raise InputError(f"unknown severity {value!r}", where=where, allowed=SEVERITIES,
                         suggestion=did_you_mean(str(value), SEVERITIES))
    level: Severity = value
    return level


def load_settings(path: str | None = None) -> CheckSettings:
    """The settings of ``path`` (``--config``), else of the nearest configuration file."""
    if path is not None:
        table = _load(path)
        if os.path.basename(path) == "pyproject.toml":
            table = table.get("tool", {}).get("cgconfig", {})
        return parse_settings(table, path)
    found = find_config()
    return parse_settings(found[1], found[0]) if found else CheckSettings()
