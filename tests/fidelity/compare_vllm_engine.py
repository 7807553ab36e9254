"""Replay the vLLM whole-engine corpus (``vllm_engine_cases_<release>.jsonl``) through cgconfig.

Each case is a whole `vllm serve` line answered by vLLM 0.33.0's engine-configuration path
(``record_vllm_engine.py``). cgconfig is given the same line, the machine as deployment facts
(``--gpu-memory-gib``, ``--gpu-sm``, ``--device hip`` on ROCm) and the model's ``config.json``
in a local folder, as a user's local model. Compared: the final ``cudagraph_mode`` (from the
plan's configured backends: vLLM keeps the label when no size is left), the configured capture
sizes, the graphs the runner captures per mode (FULL uniform decode, mixed PIECEWISE/FULL: the
oracle's ``capture``, the plan's ``capture`` lists), and whether vLLM refused the line.

    python tests/fidelity/compare_vllm_engine.py               # agreement and categories
    python tests/fidelity/compare_vllm_engine.py --ids 17 42   # cases in full
    python tests/fidelity/compare_vllm_engine.py [--corpus FILE] --update-known
    python tests/fidelity/compare_vllm_engine.py --corpus vllm_window_cases_0.33.0.jsonl
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from cgconfig.api import request_from_argv, resolve_request
from cgconfig.engines.vllm.captured import plan_groups
from cgconfig.engines.vllm.modes import phases_to_mode
from cgconfig.errors import CgConfigError
from cgconfig.line.versions import EngineVersion, choose

HERE = Path(__file__).parent
#: The release whose engine path answered the main corpus and the window corpus (a case with
#: its own ``vllm_version`` was answered by that release); every case is answered as it.
CORPUS_RELEASE = "0.33.0"
CASES = HERE / f"vllm_engine_cases_{CORPUS_RELEASE}.jsonl"
KNOWN = HERE / "known_vllm_engine_differences.json"
_AT = re.compile(r"@([A-Za-z0-9_.\-]+)")


#: The capture-window corpus (``record_vllm_window.py``): FULL decode windows, GPU memory unknown.
WINDOW_CASES = HERE / f"vllm_window_cases_{CORPUS_RELEASE}.jsonl"


@lru_cache(maxsize=4)
def load(path: Path = CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@lru_cache(maxsize=1)
def model_root() -> Path:
    """A folder with one ``<template>/config.json`` per recorded template."""
    root = Path(tempfile.mkdtemp(prefix="cgconfig-vllm-engine-"))
    for path in (HERE / "models").glob("engine-*.json"):
        folder = root / path.stem.removeprefix("engine-")
        folder.mkdir()
        (folder / "config.json").write_text(path.read_text())
    return root


def _local(word: str) -> str:
    return _AT.sub(lambda m: str(model_root() / m.group(1)), word)


def cgconfig_argv(case: dict[str, Any]) -> list[str]:
    """The machine as facts, the environment as ``VAR=value`` words, then the line."""
    memory = case["gpu_memory_gib"]  # None: unknown to cgconfig (the oracle reported 0 bytes)
    facts = [*(["--gpu-memory-gib", str(memory)] if memory is not None else []),
             "--gpu-sm", str(case["sm"]), "--gpu-count", "8"]  # the oracle's machine has 8 GPUs
    if case["platform"] == "rocm":
        facts += ["--device", "hip"]
    env = [f"{k}={v}" for k, v in sorted(case["env"].items())]
    return facts + env + [_local(w) for w in case["argv"]]


def captured_groups(capture: dict[str, Any] | None) -> dict[str, dict[str, list[int]]]:
    """The oracle's captured graphs by runtime mode, empty lists and modes left out (the shape
    of ``cgconfig.engines.vllm.captured.CapturedLists.groups``)."""
    out: dict[str, dict[str, list[int]]] = {}
    for mode, lists in (capture or {}).items():
        for kind, sizes in lists.items():
            if sizes:
                out.setdefault(mode, {})[kind] = sorted(sizes)
    return out


def expected(case: dict[str, Any]) -> dict[str, Any]:
    answer = case["answer"]
    if answer["error"]:
        return {"refused": True}
    if answer.get("model_runner") == "v0":
        # vLLM 0.10.2's V0 engine: no cudagraph_mode, one decode-only graph per V0 size
        return {"refused": False, "mode": "V0", "sizes": answer["v0_decode_graphs"] or [],
                "captured": {}}
    mode = answer["cudagraph_mode"]
    return {"refused": False, "mode": mode,  # 0.10.2 stores the sizes descending
            "sizes": [] if mode == "NONE" else sorted(answer["cudagraph_capture_sizes"]),
            "captured": captured_groups(answer.get("capture"))}


def outcome(case: dict[str, Any], engine_version: EngineVersion | None = None) -> dict[str, Any]:
    """cgconfig's answer for a case, as vLLM ``engine_version`` (None: the newest)."""
    try:
        request = request_from_argv(cgconfig_argv(case), environ={}, engine_version=engine_version)
        plan = resolve_request(request).to_dict()
    except CgConfigError as exc:
        return {"refused": True, "error": str(exc)}
    config = plan["config"]
    if any(d["rule"] == "vllm.v0-engine" for d in plan["decisions"]):
        # the V0 engine (vLLM 0.10.2): its decode graphs are the plan's captured decode sizes
        return {"refused": False, "mode": "V0", "sizes": plan["capture"]["decode"]["sizes"],
                "captured": {}}
    # vLLM's mode label is the configured one: with no size left it keeps FULL_AND_PIECEWISE.
    mode = phases_to_mode(config["decode"]["backend"], config["prefill"]["backend"]).mode.name
    sizes = config["decode"]["bs"] or []
    return {"refused": False, "mode": mode, "sizes": [] if mode == "NONE" else sizes,
            "captured": plan_groups(config, plan["capture"])}


def mismatch(case: dict[str, Any], engine_version: EngineVersion | None = None) -> str | None:
    """The category of the difference, or None when cgconfig agrees."""
    want, got = expected(case), outcome(case, engine_version)
    if want["refused"] != got["refused"]:
        return "refused-by-vllm" if want["refused"] else "refused-by-cgconfig"
    if want["refused"]:
        return None
    if want["mode"] != got["mode"]:
        return f"mode {want['mode']} != {got['mode']}"
    if want["sizes"] != got["sizes"]:
        return "sizes"
    if want["captured"] != got["captured"]:
        kinds = sorted(f"{mode} {kind}" for mode in {*want["captured"], *got["captured"]}
                       for kind in {*want["captured"].get(mode, {}), *got["captured"].get(mode, {})}
                       if want["captured"].get(mode, {}).get(kind)
                       != got["captured"].get(mode, {}).get(kind))
        return "captured " + ", ".join(kinds)
    return None


def release_of(case: dict[str, Any]) -> EngineVersion:
    """The release a case was recorded from (``vllm_version``, else :data:`CORPUS_RELEASE`)."""
    return choose("vllm", case.get("vllm_version", CORPUS_RELEASE), "corpus")


def mismatches(path: Path = CASES) -> dict[int, str]:
    found = {}
    for case in load(path):
        why = mismatch(case, release_of(case))
        if why:
            found[case["id"]] = why
    return found


def _known_file() -> dict[str, dict[str, dict[str, str]]]:
    """``known_vllm_engine_differences.json``: corpus file name → case id → ``category`` (what
    :func:`mismatch` says) and ``reason`` (why cgconfig and that release differ)."""
    return json.loads(KNOWN.read_text()) if KNOWN.exists() else {}


def known(path: Path = CASES) -> dict[int, str]:
    """The listed differences of one corpus: case id → category."""
    return {int(k): v["category"] for k, v in _known_file().get(path.name, {}).items()}


def known_reasons(path: Path = CASES) -> dict[int, str]:
    """The listed differences of one corpus: case id → its reason."""
    return {int(k): v["reason"] for k, v in _known_file().get(path.name, {}).items()}


def update_known(path: Path) -> None:
    """List the corpus's current differences, keeping the reasons already written; a new one
    gets an empty reason, which the tests refuse until someone writes it."""
    table = _known_file()
    reasons = known_reasons(path)
    found = mismatches(path)
    table[path.name] = {str(k): {"category": v, "reason": reasons.get(k, "")}
                        for k, v in sorted(found.items())}
    if not table[path.name]:
        del table[path.name]
    KNOWN.write_text(json.dumps(dict(sorted(table.items())), indent=1) + "\n")


def main(argv: list[str]) -> int:
    path = CASES
    if argv[:1] == ["--corpus"] and len(argv) >= 2:
        path, argv = HERE / argv[1], argv[2:]
    if argv[:1] == ["--update-known"]:
        update_known(path)
        return 0
    if argv[:1] == ["--ids"]:
        by_id = {c["id"]: c for c in load(path)}
        for cid in argv[1:]:
            case = by_id[int(cid)]
            print("line:", " ".join(case["argv"]), case["env"], case["gpu"])
            print("cgconfig argv:", " ".join(cgconfig_argv(case)))
            print("vLLM:", json.dumps(expected(case)), case["answer"]["error"] or "")
            print("cgconfig:", json.dumps(outcome(case, release_of(case))))
        return 0
    found = mismatches(path)
    total = len(load(path))
    print(f"vLLM whole engine ({path.name}): {total - len(found)}/{total} agree")
    for why, n in Counter(found.values()).most_common():
        print(f"  {n:5d}  {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
