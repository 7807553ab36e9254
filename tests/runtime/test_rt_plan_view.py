"""phase_capture: reading a phase out of a plan dict or a Plan-like object (needs no torch)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from cgconfig.runtime.plan_view import PhaseCapture, phase_capture


def _plan(**options: Any) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "config": {"decode": {"backend": "full", "max_bs": 16, "bs": [1, 2, 4, 8, 16]},
                   "prefill": {"backend": "breakable", "max_bs": 64, "bs": [16, 32, 64]}},
        "capture": {"decode": {"backend": "full", "sizes": [16, 1, 2, 4, 8],
                               "compile_sizes": [1, 2]},
                    "prefill": {"sizes": [64, 16, 32]}},
        "options": {"disable_padding": False, "enable_cudagraph_gc": False, **options},
    }


class _PlanObject:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc

    def to_dict(self) -> dict[str, Any]:
        return self.doc


def test_decode_phase_sorted_with_compile_sizes() -> None:
    got = phase_capture(_plan(), "decode")
    assert got == PhaseCapture("decode", "full", (1, 2, 4, 8, 16), (1, 2), False, False)
    assert got.max_size == 16 and got.enabled


def test_backend_falls_back_to_config_section() -> None:
    got = phase_capture(_plan(), "prefill")
    assert got.backend == "breakable" and got.sizes == (16, 32, 64)


def test_object_with_to_dict_and_options() -> None:
    doc = _plan(disable_padding=True, enable_cudagraph_gc=True, debug_cuda_graph=True)
    got = phase_capture(_PlanObject(doc), "decode")
    assert (got.disable_padding, got.enable_gc, got.debug) == (True, True, True)


def test_disabled_phase_has_no_sizes() -> None:
    doc = _plan()
    doc["capture"]["prefill"] = {"backend": "disabled", "sizes": [16]}
    got = phase_capture(doc, "prefill")
    assert got.sizes == () and not got.enabled and got.max_size == 0


def test_missing_phase_is_disabled() -> None:
    doc = _plan()
    del doc["capture"]["prefill"], doc["config"]["prefill"]
    assert phase_capture(doc, "prefill").backend == "disabled"


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(schema_version=2), "schema_version"),
    (lambda d: d["capture"]["decode"].update(backend="piecewise"), "unknown backend"),
    (lambda d: d["capture"]["decode"].update(sizes=[1, True]), "integers"),
    (lambda d: d["capture"]["decode"].update(sizes=[0, 1]), "positive"),
    (lambda d: d["capture"]["decode"].update(compile_sizes=[3]), "not capture sizes"),
])
def test_malformed_plans_are_rejected(mutate: Any, message: str) -> None:
    doc = _plan()
    mutate(doc)
    with pytest.raises(ValueError, match=message):
        phase_capture(doc, "decode")


def test_unknown_phase_and_non_plan() -> None:
    with pytest.raises(ValueError, match="unknown phase"):
        phase_capture(_plan(), "verify")
    with pytest.raises(TypeError, match="to_dict"):
        phase_capture(42, "decode")  # type: ignore[arg-type]


def test_plan_view_does_not_import_torch() -> None:
    # Resolving machines may lack torch: the plan reader and the package import must not need it.
    code = ("import sys; sys.modules['torch'] = None\n"
            "import cgconfig.runtime as rt\n"
            "from cgconfig.runtime import phase_capture, PhaseCapture\n"
            "print(rt.phase_capture is phase_capture)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
