"""SGLang's ``tc_piecewise`` backend: the releases that have it, and their refusal after it.

``tc_piecewise`` is SGLang's torch.compile piecewise graph, a backend of either phase in the
releases that have it (``model_executor/cuda_graph_config.py:Backend.TC_PIECEWISE``; the decode
runner runs it as ``full``, ``model_executor/runner/decode_cuda_graph_runner.py``), with a
``tc_compiler`` key in each phase of ``--cuda-graph-config`` (``ALLOWED_KEYS_PER_PHASE``) that
chooses torch.compile's compiler and changes no captured size. The release that removed it
refuses the backend (argparse's choices for the flags, ``validate_cuda_graph_config`` for the
JSON) and the key. Rows of :class:`~cgconfig.engines.release_change.ReleaseChange`. Stdlib only.
"""

from __future__ import annotations

from collections.abc import Iterable

from cgconfig.constants import BACKENDS
from cgconfig.engines.release_change import ReleaseChange, holds_in
from cgconfig.engines.versions import SUPPORTED, label, version_key
from cgconfig.errors import InputError

#: The releases whose backends include ``tc_piecewise`` (flags and ``--cuda-graph-config``).
TC_PIECEWISE_BACKEND: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.22", "tc_piecewise is a backend of either phase (torch.compile "
                  "piecewise graphs; decode runs it as full)",
                  "python/sglang/srt/model_executor/cuda_graph_config.py:"
                  "ALLOWED_BACKENDS_PER_PHASE"),
)

#: The releases whose ``--cuda-graph-config`` phases take a ``tc_compiler`` key.
TC_COMPILER_KEY: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.22", "each phase of --cuda-graph-config takes tc_compiler "
                  "(the tc_piecewise compiler; no effect on the captured sizes)",
                  "python/sglang/srt/model_executor/cuda_graph_config.py:"
                  "ALLOWED_KEYS_PER_PHASE"),
)


def _removed_in(rows: tuple[ReleaseChange, ...]) -> str:
    """The first supported release past the rows' range, as messages name it."""
    until = rows[-1].until
    assert until is not None
    later = [v for v in SUPPORTED["sglang"]
             if (version_key(v) or ()) >= (version_key(until) or ())]
    return label("sglang", later[0] if later else until)


def has_tc_piecewise(release: str) -> bool:
    """Whether SGLang ``release`` accepts the ``tc_piecewise`` backend."""
    return holds_in(TC_PIECEWISE_BACKEND, release)


def backends_of(release: str) -> tuple[str, ...]:
    """The backends SGLang ``release`` accepts, in cgconfig's order."""
    return tuple(b for b in BACKENDS if b != "tc_piecewise" or has_tc_piecewise(release))


def read_config_keys(release: str) -> frozenset[str]:
    """The ``--cuda-graph-config`` keys SGLang ``release`` reads that make no plan key."""
    return frozenset({"tc_compiler"}) if holds_in(TC_COMPILER_KEY, release) else frozenset()


def check_backends(release: str, backends: Iterable[tuple[str, str]]) -> None:
    """Raise :class:`InputError` for a ``(backend, where)`` of ``tc_piecewise`` that SGLang
    ``release`` refuses (the release that removed it and every later one)."""
    if has_tc_piecewise(release):
        return
    for backend, where in backends:
        if backend == "tc_piecewise":
            shown = label("sglang", release)
            raise InputError(
                f"{shown} refuses it: tc_piecewise was removed in "
                f"{_removed_in(TC_PIECEWISE_BACKEND)}", where=where,
                allowed=("full", "breakable", "disabled"),
                hint=f"select breakable, full, or disabled, or name an older release with "
                     f"--engine-version ({TC_PIECEWISE_BACKEND[-1].cites})")


def replacement_for(hint: str | None, release: str) -> str | None:
    """A removed flag's replacement as SGLang ``release`` can take it: one that selects
    ``tc_piecewise`` (``--enforce-piecewise-cuda-graph``'s) becomes ``breakable`` once the
    release has no ``tc_piecewise``."""
    if hint is None or "tc_piecewise" not in hint or has_tc_piecewise(release):
        return hint
    return (hint.replace("tc_piecewise", "breakable")
            + f" (tc_piecewise was removed in {_removed_in(TC_PIECEWISE_BACKEND)})")
