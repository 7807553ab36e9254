"""The vLLM dialect's compilation-config documents as the releases that keep one document read
them (vLLM 0.10.2 and 0.11.2: argparse keeps the last ``--compilation-config`` / ``-O`` value,
the dotted keys appended as one more), and 0.10.2's deprecated graph switches
(``compile_changes.DEPRECATED_GRAPH_SWITCHES``). Imported by :mod:`.argv` only for those
releases. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cgconfig.errors import InputError


def one_document(record_key: Callable[..., None], out: Any,
                 documents: dict[tuple[int, int, str],
                  list[tuple[str, Any, str, str, int]]], release: str) -> None:
    """vLLM 0.11.2's argparse keeps the last compilation-config document: record its keys;
    the others are still validated (``TypeAdapter(CompilationConfig).validate_json`` parses
    each value) and named in a note."""
    from cgconfig.engines.vllm.modes import mode_from_value

    order = sorted(documents)
    for document in order[:-1]:
        scratch = type(out)()
        for key, item, source, at, position in documents[document]:
            record_key(scratch, key, item, source, at, position, release)
            if key == "cudagraph_mode" and item is not None:
                try:
                    mode_from_value(item)
                except ValueError as exc:
                    raise InputError(str(exc), where=f"{source} at {at}") from None
        if "mode" in scratch.cc or "level" in scratch.cc:
            scratch.compilation_mode()
        shown = "a -O<n> / -O.KEY document" if document[2] == "-O" else \
            f"{document[2]}.KEY keys" if document[0] == 1 else f"the {document[2]} document"
        out.notes.append(f"vLLM {release} keeps one compilation-config document, the last its "
                         f"parser passes ({order[-1][2]}): {shown} dropped "
                         "(FlexibleArgumentParser.parse_args appends the dotted keys as one "
                         "more document after the others)")
    for key, item, source, at, position in documents[order[-1]]:
        record_key(out, key, item, source, at, position, release)


def deprecated_switches(out: Any, release: str) -> None:
    """vLLM 0.10.2's ``CompilationConfig.__post_init__``: ``use_cudagraph=False`` sets
    ``cudagraph_mode`` NONE, then ``full_cuda_graph=True`` sets FULL; each is refused when
    ``cudagraph_mode`` is already set (:data:`~.compile_changes.DEPRECATED_GRAPH_SWITCHES`)."""
    for key, wanted, mode in (("use_cudagraph", False, "NONE"), ("full_cuda_graph", True, "FULL")):
        given = out.final(key)
        if given is None or bool(given.value) is not wanted:
            continue
        if out.effective("cudagraph_mode"):
            raise InputError(f"{key} and cudagraph_mode are mutually exclusive, prefer "
                             f"cudagraph_mode since {key} is deprecated. (vLLM {release} "
                             "CompilationConfig.__post_init__)", where=f"{given.source} at "
                             f"{given.at}".strip())
        out.cc.setdefault("cudagraph_mode", []).append(
            type(given)(mode, given.source, f"{given.at} ({key}={str(wanted).lower()}: "
                    f"cudagraph_mode {mode})", given.position))
