"""The launches of one file: ``cgconfig.files.find_launches`` for deployment files and
scripts, :mod:`cgconfig.lint.docblocks` for the code blocks of Markdown and reStructuredText."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch

#: How ``find_launches`` says a document holds no launch (not an error for a repository walk).
NO_LAUNCH = "no engine launch found"
#: File names read as documentation.
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".rest")


def read_launches(path: str, text: str, variables: dict[str, str]) -> list[Launch]:
    """Every engine launch of ``text`` (the contents of ``path``), in file order."""
    if path.lower().endswith(DOC_SUFFIXES):
        from cgconfig.lint.docblocks import launches_in_docs

        return launches_in_docs(path, text, variables)
    from cgconfig.errors import InputError
    from cgconfig.files.launch import find_launches

    try:
        return find_launches(path, text, variables=variables)
    except InputError as error:
        # `resolve --from` needs a launch; a repository's other YAML files simply have none
        if error.what.startswith(NO_LAUNCH):
            from cgconfig.lint.engine_options import options_launch

            return options_launch(path, text)
        raise
