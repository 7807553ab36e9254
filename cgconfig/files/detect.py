"""Which kind of document a file is, and the reader that finds its launches."""

from __future__ import annotations

from cgconfig.errors import InputError
from cgconfig.files.context import Context
from cgconfig.files.record import Launch
from cgconfig.files.script import launches_in_script
from cgconfig.limits import MAX_LAUNCHES


def looks_like_yaml(path: str, text: str) -> bool:
    """A ``.yaml``/``.yml``/``.json`` name, or text whose first meaningful line is a YAML
    mapping key or document marker (a shell script's first line is a command)."""
    if path.lower().endswith((".yaml", ".yml", ".json")):
        return True
    for row in text.splitlines()[:200]:
        stripped = row.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped == "---" or stripped.startswith("{"):
            return True
        key, sep, _ = stripped.partition(":")
        return bool(sep) and key.replace("-", "").replace("_", "").replace(".", "").isalnum() \
            and " " not in key
    return False


def _dockerfile(path: str) -> bool:
    from cgconfig.files.dockerfile import is_dockerfile

    return is_dockerfile(path)


def read_launches(path: str, text: str, *, variables: dict[str, str]) -> list[Launch]:
    """Every launch of ``text``: YAML documents by their kind, anything else as a script."""
    if looks_like_yaml(path, text):
        from cgconfig.files.documents import launches_in_documents

        found = launches_in_documents(path, text, variables)
    elif _dockerfile(path):
        from cgconfig.files.dockerfile import launches_in_dockerfile

        found = launches_in_dockerfile(path, text, variables)
    elif path.lower().endswith(".md"):
        from cgconfig.files.markdown import launches_in_markdown

        found = launches_in_markdown(path, text, variables)
    else:
        found = launches_in_script(text, 1, Context(path, "shell"), variables)
    if len(found) > MAX_LAUNCHES:
        raise InputError(f"file starts more than {MAX_LAUNCHES} engines", where=path)
    return found
