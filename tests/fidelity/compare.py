"""Replay the recorded fidelity corpus through cgconfig and compare with the engines' answers.

Used by the test suite (``test_fidelity.py``) and by hand::

    python tests/fidelity/compare.py            # agreement figures and mismatches by category
    python tests/fidelity/compare.py --ids 17   # one case in full
    python tests/fidelity/compare.py --update-known   # record today's open differences

Each case's machine (platform, GPU memory, SM) becomes cgconfig deployment facts in
:func:`sglang_argv`; the model's ``config.json`` is written to a folder named like the model, so
path-based engine rules (``llama-2``) see the same path shape, and cgconfig reads the model's
facts from it as it does for any local model.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from cgconfig.api import resolve_args
from cgconfig.engines.release_change import holds_in
from cgconfig.engines.sglang.releases import CUDA_GRAPH_CONFIG_LOCKS
from cgconfig.engines.vllm.splitting_ops import VLLM_ATTENTION_OPS
from cgconfig.errors import CgConfigError

HERE = Path(__file__).parent

#: The folder name each model's config.json is written under (as on a real disk).
MODEL_DIRS = {"llama": "llama-3-8b", "llama-2": "llama-2-7b", "qwen3_moe": "qwen3-30b-a3b",
              "deepseek_v3": "deepseek-v3", "qwen3_vl": "qwen3-vl-8b",
              "qwen3_5_moe_vl": "qwen3.5-moe-vl", "MuseGlimmerForCausalLM": "muse-glimmer"}
_DRAFT = "@llama"


@lru_cache(maxsize=1)
def model_root() -> Path:
    """A folder holding one ``<model dir>/config.json`` per corpus model."""
    root = Path(tempfile.mkdtemp(prefix="cgconfig-fidelity-"))
    for name, dirname in MODEL_DIRS.items():
        (root / dirname).mkdir()
        (root / dirname / "config.json").write_text((HERE / "models" / f"{name}.json").read_text())
    return root


def sglang_argv(case: dict[str, Any]) -> list[str]:
    """cgconfig's argv for a recorded SGLang case: the launch line plus the machine and model."""
    root = model_root()
    line = [str(root / MODEL_DIRS["llama"]) if tok == _DRAFT else tok for tok in case["argv"]]
    # The model facts (architecture, MLA, multimodal, context length) come from the
    # config.json in that folder, as they do for a user's local model.
    facts = ["--model-path", str(root / MODEL_DIRS[case["model"]]),
             "--gpu-memory-gib", str(case["gpu_memory_gib"]), "--gpu-sm", str(case["sm"])]
    if "--device" not in line:
        # The oracle's machine: SGLang resolves on it whatever backend the line names.
        facts += ["--device", case["platform"]]
    if case.get("engine_version"):  # an older release's corpus: answered as that release
        facts += ["--engine-version", f"sglang=={case['engine_version']}"]
    return facts + line


def _phase(plan_config: dict[str, Any], phase: str) -> dict[str, Any]:
    got = plan_config[phase]
    return {"backend": got["backend"], "max_bs": got["max_bs"], "bs": got["bs"]}


def sglang_outcome(case: dict[str, Any]) -> dict[str, Any]:
    """cgconfig's answer in the recorded answer's shape."""
    try:
        plan = resolve_args(sglang_argv(case)).to_dict()
    except CgConfigError as exc:
        return {"error": str(exc)}
    # SGLang tracks locks on cuda_graph_config keys only (``ServerArgs._cuda_graph_config_locked``);
    # cgconfig also locks graph options, which have no counterpart to compare.
    locked = sorted(k for k in plan["locked"] if k.startswith(("decode.", "prefill.")))
    return {"error": None, "decode": _phase(plan["config"], "decode"),
            "prefill": _phase(plan["config"], "prefill"), "locked": locked}


#: Differences kept on purpose (docs/fidelity.md, "Deliberate deviations"): the category a
#: mismatch is filed under, and the text that identifies it in the engine's or cgconfig's error.
DELIBERATE = {
    # A decode graph size below 1 (--cuda-graph-max-bs-decode 0 or -4, --cuda-graph-bs-decode
    # 0 4) with the decode graph on: SGLang 0.5.18 to 0.5.23 plan it in resolve_once and stop
    # at start-up, where the decode runner's model_executor/runner/base_cuda_graph_runner.py:
    # get_batch_sizes_to_capture asserts capture_bs[0] > 0; cgconfig plans the same sizes and
    # refuses there (engines/sglang/cuda_graph_runner.py). The corpora recorded before the
    # oracle ran that start-up stage hold SGLang's plan; the fresh2@/fresh3@ batches were
    # recorded with it and agree.
    "deliberate:start-up-not-recorded": ("cgconfig", "and stops at start-up: "),
    # The oracle's XPU stub has no torch.xpu.get_device_properties, so SGLang's XMX probe
    # (utils/common.py:xpu_has_xmx_support) fails; a real XPU answers it.
    "deliberate:oracle-xpu-stub": ("engine", "Torch not compiled with XPU enabled"),
    # The oracle's environment has the real xgrammar over its tvm_ffi stub since the vLLM
    # engine oracle was added, so SGLang's DFLASH path fails importing xgrammar's FFI (a
    # harness crash, not SGLang's verdict; the older releases' corpora were recorded after it).
    # The fresh@ batches were recorded with xgrammar as an import-only stub, and have none.
    "deliberate:oracle-xgrammar-ffi": ("engine", "has no attribute 'get_max_recursion_depth'"),
}


def _deliberate(want_error: str | None, got_error: str | None) -> str | None:
    for category, (side, text) in DELIBERATE.items():
        error = got_error if side == "cgconfig" else want_error
        if error and text in error:
            return category
    return None


def sglang_mismatch(case: dict[str, Any]) -> str | None:
    """None when cgconfig agrees with SGLang, else the first difference as a category string
    (``deliberate:…`` for the deviations kept on purpose)."""
    want, got = case["answer"], sglang_outcome(case)
    if want["error"] and got["error"]:
        return None
    kept = _deliberate(want["error"], got["error"])
    if kept:
        return kept
    if want["error"]:
        return "engine-refuses"
    if got["error"]:
        return "cgconfig-refuses"
    for phase in ("decode", "prefill"):
        for key in ("backend", "max_bs", "bs"):
            if want[phase][key] != got[phase][key]:
                return f"{phase}.{key}"
    # SGLang 0.5.19 to 0.5.21 lock ``<phase>.tc_compiler`` for a tc_piecewise compiler flag;
    # cgconfig reads the flag and the key but plans no such key (the compiler changes no
    # captured size), so there is no lock to match.
    # SGLang 0.5.13 keeps no lock set (releases.CUDA_GRAPH_CONFIG_LOCKS: its ServerArgs has no
    # _cuda_graph_config_locked), so a plan's locked keys have nothing to be compared with.
    release = case.get("engine_version") or CORPUS_RELEASE["sglang"]
    if not holds_in(CUDA_GRAPH_CONFIG_LOCKS, release):
        return None
    wanted = sorted(k for k in want["locked"] if not k.endswith(".tc_compiler"))
    if wanted != got["locked"]:
        return "locked"
    return None


#: cgconfig's (decode, prefill) backends for each vLLM mode.
VLLM_MODE_PHASES = {"NONE": ("disabled", "disabled"), "PIECEWISE": ("breakable", "breakable"),
                    "FULL": ("full", "full"), "FULL_DECODE_ONLY": ("full", "disabled"),
                    "FULL_AND_PIECEWISE": ("full", "breakable")}
_COMPILATION_MODES = {"NONE": 0, "STOCK_TORCH_COMPILE": 1, "DYNAMO_TRACE_ONCE": 2, "VLLM_COMPILE": 3}


def vllm_argv(case: dict[str, Any]) -> list[str]:
    """cgconfig's argv (vLLM dialect) for a recorded vLLM case.

    The oracle's ``--splitting-ops-attention yes`` is vLLM's attention op list written out, ``no``
    an empty list, ``auto`` the key left unset; ``--blackwell`` is compute capability 10.0.
    """
    cc: dict[str, Any] = {"cudagraph_mode": case["cudagraph_mode"],
                          "mode": _COMPILATION_MODES[case["compilation_mode"]]}
    if case["splitting_ops_attention"] == "no":
        cc["splitting_ops"] = []
    elif case["splitting_ops_attention"] == "yes":
        cc["splitting_ops"] = list(VLLM_ATTENTION_OPS)
    if "capture_sizes" in case:
        cc["cudagraph_capture_sizes"] = case["capture_sizes"]
    if "max_capture_size" in case:
        cc["max_cudagraph_capture_size"] = case["max_capture_size"]
    argv = ["-cc", json.dumps(cc), "--cudagraph-support", case["support"],
            "--max-num-seqs", str(case["max_num_seqs"]),
            "--max-num-batched-tokens", str(case["max_num_batched_tokens"])]
    if case["num_spec_tokens"]:
        argv += ["--num-speculative-tokens", str(case["num_spec_tokens"])]
    if case["enforce_eager"]:
        argv.append("--enforce-eager")
    if case["blackwell"]:
        argv += ["--gpu-sm", "100"]
    return argv


def vllm_expected(case: dict[str, Any]) -> dict[str, Any]:
    """vLLM 0.33.0's whole decision for a case: the recorded answer, completed with the two
    ``VllmConfig.__post_init__`` steps the oracle does not run (its README, "Not run").

    * ``enforce_eager`` sets ``cudagraph_mode = NONE`` (and ``mode = NONE``) before anything
      else, so the worker's ``resolve_cudagraph_mode_and_sizes`` returns NONE at once and no
      size or capability check runs.
    * ``_normalize_piecewise_cudagraph_mode`` (no breakable CUDA graphs: the default) runs
      before the sizes: outside VLLM_COMPILE, PIECEWISE becomes NONE (sizes cleared, no size
      check) and FULL_AND_PIECEWISE becomes FULL_DECODE_ONLY. The oracle kept
      FULL_AND_PIECEWISE; every later step treats the two alike (same sizes, neither has a FULL
      mixed mode for B2, the same FULL decode mode for B3/B4/B7, and
      ``set_splitting_ops_for_v1`` returns early outside VLLM_COMPILE), so the recorded answer
      holds with FULL_AND_PIECEWISE read as FULL_DECODE_ONLY where no rule changed it.
    """
    want = dict(case["answer"])
    requested = case["cudagraph_mode"]
    if case["enforce_eager"] or (case["compilation_mode"] != "VLLM_COMPILE"
                                 and requested == "PIECEWISE"):
        return {**want, "error": None, "mode": "NONE", "sizes": []}
    if case["compilation_mode"] != "VLLM_COMPILE" and requested == "FULL_AND_PIECEWISE" \
            and want["mode"] == "FULL_AND_PIECEWISE":
        want["mode"] = "FULL_DECODE_ONLY"
    return want


def vllm_outcome(case: dict[str, Any]) -> dict[str, Any]:
    """cgconfig's answer in the expected answer's shape."""
    try:
        # Answered as the release that recorded the corpus (the line itself names none).
        pin = ["--engine-version", f"vllm=={CORPUS_RELEASE['vllm']}"]
        plan = resolve_args([*pin, *vllm_argv(case)]).to_dict()
    except CgConfigError as exc:
        return {"error": str(exc)}
    phases = (plan["config"]["decode"]["backend"], plan["config"]["prefill"]["backend"])
    mode = next(m for m, p in VLLM_MODE_PHASES.items() if p == phases)
    return {"error": None, "mode": mode, "sizes": plan["config"]["decode"]["bs"]}


def vllm_mismatch(case: dict[str, Any]) -> str | None:
    """None when cgconfig agrees with vLLM's resolved mode and sizes, else a category."""
    want, got = vllm_expected(case), vllm_outcome(case)
    if want["error"] or got["error"]:
        return None if want["error"] and got["error"] else \
            "engine-refuses" if want["error"] else "cgconfig-refuses"
    if want["mode"] != got["mode"]:
        return "mode"
    if want["mode"] != "NONE" and got["sizes"] != want["sizes"]:
        return "sizes"
    return None


#: The release each engine's main corpus (kind ``sglang``, ``vllm``) was recorded from: its
#: cases are answered as that release, so a newer release leaves them as they are.
CORPUS_RELEASE = {"sglang": "0.5.23", "vllm": "0.33.0"}


def corpus_file(kind: str) -> Path:
    """``sglang`` (the main SGLang corpus), ``vllm`` (vLLM's CompilationConfig corpus),
    ``sglang@0.5.20`` (another release's corpus) or ``heldout@0.5.20`` (a release's held-out
    batch, ``record.py --heldout``). Every file is named for the release it was recorded from:
    ``sglang_cases_<release>.jsonl``, ``vllm_compilation_cases_<release>.jsonl``,
    ``sglang_heldout_<release>.jsonl``."""
    engine, _, version = kind.partition("@")
    if engine in HELDOUT_BATCHES:  # fresh: the second held-out batch (seed 7300), ...
        return HERE / f"sglang_{engine}_{version}.jsonl"
    if engine == "vllm":
        return HERE / f"vllm_compilation_cases_{CORPUS_RELEASE['vllm']}.jsonl"
    return HERE / f"sglang_cases_{version or CORPUS_RELEASE['sglang']}.jsonl"


#: The held-out batches per SGLang release, oldest first (``sglang_<batch>_<release>.jsonl``):
#: heldout (seed 6100), fresh (seed 7300), fresh2 (seed 8400, the oracle's start-up stage:
#: recorded first and measured before the fixes for it), fresh3 (seed 8600, recorded after),
#: fresh4 (seed 8800, recorded after the fresh3 fixes); for the older releases heldout2 (seeds
#: 9610-9612 and 9709, the start-up stage) and heldout3 (0.5.11 seed 9711, 0.5.12 seed 9712,
#: recorded after the heldout2 fixes; SGLang 0.5.9 seed 9809: the batch no one had seen when its
#: rules were written, docs/fidelity.md); heldout4 (0.5.11 seed 9911, 0.5.13-0.5.18 seeds
#: 99131-99181: blind batches with the start-up stage, recorded after heldout3's fixes);
#: heldout5 (0.5.14-0.5.16, seeds 992141-992161, recorded after heldout4's fixes).
HELDOUT_BATCHES = ("heldout", "heldout2", "heldout3", "heldout4", "heldout5", "fresh",
                   "fresh2", "fresh3", "fresh4")


def version_kinds() -> list[str]:
    """The other SGLang releases with a recorded corpus, as kinds (``sglang@0.5.20``)."""
    from cgconfig.line.versions import SUPPORTED

    return [f"sglang@{v}" for v in SUPPORTED["sglang"]
            if v != CORPUS_RELEASE["sglang"] and corpus_file(f"sglang@{v}").exists()]


def heldout_kinds() -> list[str]:
    """The SGLang releases with a held-out batch, as kinds (``heldout@0.5.20``, seed 6100;
    ``fresh@0.5.20``, seed 7300, recorded after issue #31's start-up checks were written)."""
    from cgconfig.line.versions import SUPPORTED

    return [f"{batch}@{v}" for batch in HELDOUT_BATCHES for v in SUPPORTED["sglang"]
            if corpus_file(f"{batch}@{v}").exists()]


def load(kind: str) -> list[dict[str, Any]]:
    """The cases of a corpus, each SGLang case with the release it is answered as."""
    version = kind.partition("@")[2] or (CORPUS_RELEASE["sglang"] if kind == "sglang" else "")
    with open(corpus_file(kind)) as fh:
        cases = [json.loads(line) for line in fh]
    for case in cases:
        if version:
            case["engine_version"] = version
    return cases


def mismatches(kind: str) -> dict[int, str]:
    """Case id → category for every case cgconfig gets wrong."""
    check = vllm_mismatch if kind == "vllm" else sglang_mismatch
    found = {}
    for case in load(kind):
        why = check(case)
        if why:
            found[case["id"]] = why
    return found


KNOWN_FILE = HERE / "known_differences.json"


def known() -> dict[str, dict[int, str]]:
    """The recorded differences still open: kind → case id → category."""
    data = json.loads(KNOWN_FILE.read_text())
    return {kind: {int(k): v for k, v in cases.items()} for kind, cases in data.items()}


def write_known() -> None:
    """Record today's differences as the open list (after a fix, or after re-recording)."""
    data = {kind: {str(k): v for k, v in sorted(mismatches(kind).items())}
            for kind in ("sglang", "vllm", *version_kinds(), *heldout_kinds())}
    KNOWN_FILE.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")


def file_mismatches(path: Path, version: str) -> tuple[int, dict[int, str]]:
    """(cases, case id → category) for a corpus file of SGLang ``version`` (a held-out batch:
    ``sglang_heldout_<version>.jsonl``)."""
    with open(path) as fh:
        cases = [json.loads(line) for line in fh]
    found = {}
    for case in cases:
        case["engine_version"] = version
        why = sglang_mismatch(case)
        if why:
            found[case["id"]] = why
    return len(cases), found


def main(argv: list[str]) -> None:
    if argv[:1] == ["--file"]:  # --file PATH VERSION [--ids]: a held-out batch
        total, bad = file_mismatches(Path(argv[1]), argv[2])
        print(f"{argv[1]} (SGLang {argv[2]}): {total - len(bad)}/{total} agree "
              f"({100 * (total - len(bad)) / total:.1f} %)")
        for case_id, why in sorted(bad.items()):
            print(f"  {case_id:5d}  {why}")
        return
    if argv[:1] == ["--update-known"]:
        write_known()
        return
    if argv[:1] == ["--ids"]:
        kind = argv[2] if len(argv) > 2 else "sglang"
        case = {c["id"]: c for c in load(kind)}[int(argv[1])]
        print(json.dumps(case, indent=1))
        if kind == "vllm":
            print("vLLM as a whole:", json.dumps(vllm_expected(case)))
            print("cgconfig argv:", " ".join(vllm_argv(case)))
            print("cgconfig:", json.dumps(vllm_outcome(case)))
            return
        print("cgconfig argv:", " ".join(sglang_argv(case)))
        print("cgconfig:", json.dumps(sglang_outcome(case)))
        return
    for kind in ("sglang", "vllm", *version_kinds(), *heldout_kinds()):
        if not corpus_file(kind).exists():
            print(f"{kind}: no recorded corpus here")
            continue
        cases = load(kind)
        bad = mismatches(kind)
        kept = sum(1 for why in bad.values() if why.startswith("deliberate:"))
        resolved = sum(1 for c in cases if not c["answer"]["error"])
        print(f"{kind}: {len(cases) - len(bad)}/{len(cases)} agree "
              f"({100 * (len(cases) - len(bad)) / len(cases):.1f} %); engine resolved {resolved}; "
              f"{kept} deliberate deviations, {len(bad) - kept} open")
        for why, n in Counter(bad.values()).most_common():
            print(f"  {n:5d}  {why}")


if __name__ == "__main__":
    main(sys.argv[1:])
