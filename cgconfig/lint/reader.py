"""The launches of one file: ``cgconfig.files.find_launches`` for every kind it reads, and the
reStructuredText code blocks (:mod:`cgconfig.lint.rst`) it does not."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch


def read_launches(path: str, text: str, variables: dict[str, str]) -> list[Launch]:
    """Every engine launch of ``text`` (the contents of ``path``), in file order."""
    if path.lower().endswith((".rst", ".rest")):
        from cgconfig.lint.rst import launches_in_rst

        return launches_in_rst(path, text, variables)
    from cgconfig.files.launch import find_launches

    return find_launches(path, text, variables=variables)
