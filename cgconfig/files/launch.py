"""One engine launch found in a deployment file, and the entry to the readers that find them."""

from __future__ import annotations

from collections.abc import Mapping

from cgconfig.files.record import Launch

__all__ = ["Launch", "find_launches"]


def find_launches(path: str, text: str, *,
                  variables: Mapping[str, str] | None = None) -> list[Launch]:
    """Every engine launch in ``text`` (the contents of ``path``), in file order.

    The document kind is detected (``apiVersion``/``kind``, top-level keys, else a shell
    script); ``variables`` (``--set VAR=VALUE``) fill what the file leaves unset. Bad input is an
    :class:`~cgconfig.errors.InputError` naming ``path``."""
    from cgconfig.files.detect import read_launches

    return read_launches(path, text, variables=dict(variables or {}))
