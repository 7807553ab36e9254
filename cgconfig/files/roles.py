"""The prefill/decode role an engine's own flags give a launch."""

from __future__ import annotations

import json

ROLES = ("prefill", "decode")

#: vLLM's ``kv_transfer_config.kv_role`` → the P/D role (``kv_both`` names none).
_KV_ROLES = {"kv_producer": "prefill", "kv_consumer": "decode"}


def _values(argv: list[str], names: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for i, word in enumerate(argv):
        name, sep, inline = word.partition("=")
        if name in names:
            if sep:
                out.append(inline)
            elif i + 1 < len(argv):
                out.append(argv[i + 1])
    return out


def role_of(dialect: str, argv: list[str]) -> str | None:
    """``prefill``/``decode`` from SGLang's ``--disaggregation-mode`` or vLLM's
    ``--kv-transfer-config`` ``kv_role``, else ``None`` (the last one given wins, as argparse
    reads it)."""
    if dialect == "sglang":
        found = _values(argv, ("--disaggregation-mode",))
        return found[-1] if found and found[-1] in ROLES else None
    if dialect == "vllm":
        for text in reversed(_values(argv, ("--kv-transfer-config", "--kv_transfer_config"))):
            try:
                data = json.loads(text) if len(text) < 65_536 else None
            except ValueError:
                return None
            if isinstance(data, dict):
                return _KV_ROLES.get(str(data.get("kv_role")))
    return None


def label_role(value: object) -> str | None:
    """A label or field value naming a P/D role (``prefill``, ``decode``), else ``None``."""
    text = str(value).strip().lower() if isinstance(value, str) else ""
    return text if text in ROLES else None
