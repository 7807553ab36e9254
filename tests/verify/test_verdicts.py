"""Each case of issue #36 part 2 on a real excerpt (tests/verify/log_set.py names its thread):
the release a log is judged by, the facts it prints, and the verdict with its reason first."""

from __future__ import annotations

from pathlib import Path

import pytest

from cgconfig.cli.main import main
from cgconfig.verify.check import verify
from cgconfig.verify.read import read_lines, read_log
from cgconfig.verify.report import render

LOGS = Path(__file__).parents[1] / "data" / "verify_logs"


def _judge(name: str, line: tuple[str, ...] = (), engine_version: str | None = None):  # type: ignore[no-untyped-def]
    return verify(read_log(str(LOGS / name)), list(line), engine_version=engine_version)


def test_sglang_04_logs_cannot_be_judged_not_prefill_captured_nothing() -> None:
    """https://github.com/sgl-project/sglang/pull/11716 and an SGLang 0.4.x log (2025-01):
    those releases capture no prefill graph; cgconfig models 0.5.19+."""
    for name in ("sglang_pr11716.log", "sglang_0.4_bare_bar_23.log"):
        verdict = _judge(name)
        assert verdict.level == "cannot judge" and verdict.exit_code == 3
        assert "SGLang 0.4.0-0.5.13" in verdict.reasons[0]
        assert "prefill" not in " ".join(verdict.reasons)


def test_a_log_older_releases_print_too_is_judged_by_the_release_named() -> None:
    """https://github.com/sgl-project/sglang/pull/20758 (MUSA, 0.5.6-0.5.13's formats): most
    releases that print it are not modelled, so the log alone cannot be judged; named SGLang
    0.5.8 (the oldest supported) it is judged by 0.5.8's rules, and 0.5.7 is refused."""
    verdict = _judge("sglang_musa_pr20758.log")
    assert verdict.level == "cannot judge" and "models only 0.5.8 on" in verdict.reasons[0]
    named = _judge("sglang_musa_pr20758.log", engine_version="sglang==0.5.8")
    assert named.comparison is not None
    assert named.comparison.plan.engine_version["version"] == "0.5.8"
    older = _judge("sglang_musa_pr20758.log", engine_version="sglang==0.5.7")
    assert older.level == "cannot judge" and "SGLang 0.5.8 to" in older.reasons[0]


def test_vllm_v0_cannot_be_judged_not_mixed_captured_nothing() -> None:
    """https://github.com/vllm-project/vllm/pull/11349: V0 captures decode graphs only."""
    verdict = _judge("vllm_v0_pr11349.log")
    assert verdict.level == "cannot judge" and verdict.comparison is None
    assert "V0 engine" in verdict.reasons[0] and "mixed" not in " ".join(verdict.reasons)


def test_vllm_011_is_judged_only_when_the_user_names_a_release() -> None:
    """A vLLM 0.11.0 README log: 67 mixed graphs (0.11's grid)."""
    verdict = _judge("vllm_0.11.0_qwen3vl_tp4.log")
    assert verdict.level == "cannot judge"
    assert "vLLM 0.11.0 (log line 1) is outside what cgconfig models" in verdict.reasons[0]
    named = _judge("vllm_0.11.0_qwen3vl_tp4.log", engine_version="vllm==0.20.2")
    assert named.level == "differs"
    assert named.comparison is not None
    assert named.comparison.plan.engine_version["version"] == "0.20.2"
    outside = _judge("vllm_0.11.0_qwen3vl_tp4.log", engine_version="vllm==0.11.0")
    assert outside.level == "cannot judge" and "--engine-version" in outside.reasons[0]


def test_gpu_memory_the_log_prints_replaces_the_default() -> None:
    """A vLLM 0.26.0 run: `Free memory on device (15.32/15.55 GiB)`; a TensorRT-LLM 1.1.0rc3
    log: `device total memory 119.70 GiB`. Each is used and named in the report."""
    verdict = _judge("vllm_0.26.0_mrv2_t4.log")
    assert [(f.name, f.value) for f in verdict.facts] == [("gpu_memory_gib", 15.55)]
    assert verdict.comparison is not None and "--gpu-memory-gib" in verdict.comparison.argv
    assert "from the log: gpu_memory_gib=15.55 (log line 15" in render(verdict)
    given = _judge("vllm_0.26.0_mrv2_t4.log", ("--gpu-memory-gib", "80"))
    assert given.facts == []  # what the user gives wins


def test_model_runner_v2_full_label_is_decode_full() -> None:
    """`Capturing CUDA graphs (FULL)` / `(PIECEWISE)` (Model Runner V2, vLLM 0.26.0)."""
    verdict = _judge("vllm_0.26.0_mrv2_t4.log")
    assert set(verdict.record.captures) == {"decode FULL", "mixed PIECEWISE"}
    assert verdict.record.captures["decode FULL"].graphs == 35
    assert verdict.level == "matches"


def test_enforce_eager_is_a_fact_and_nothing_captured_matches() -> None:
    """https://github.com/LMCache/LMCache/pull/2522 (`'enforce_eager': True`, `Enforce eager
    set`); https://github.com/vllm-project/vllm/pull/13027 (config line `enforce_eager=True`)."""
    verdict = _judge("vllm_lmcache2522_enforce_eager.log")
    assert verdict.record.facts["enforce_eager"].value is True
    assert verdict.comparison is not None and not verdict.comparison.expected
    assert verdict.level == "matches"
    record = read_log(str(LOGS / "vllm_v0_0.6.4_13027_eager.log"))
    assert record.facts["enforce_eager"].line == 1
    # The config line alone (no printed arguments) makes the plan eager too.
    line = ("(EngineCore pid=1) INFO 08-02 07:03:41 [core.py:116] Initializing a V1 LLM engine "
            "(v0.33.0) with config: model='m', enforce_eager=True, kv_cache_dtype=auto")
    eager = verify(read_lines([line], "log"), ["vllm", "serve", "m"])
    assert [f.name for f in eager.facts] == ["enforce_eager"] and eager.level == "matches"
    assert eager.comparison is not None and "--enforce-eager" in eager.comparison.argv


def test_eighty_steps_without_a_graph_warn_with_the_reason_first() -> None:
    """https://github.com/sgl-project/sglang/pull/13023 on the thread's L40S: 2 lines x 40."""
    verdict = _judge("sglang_pr13023.log", ("--gpu-memory-gib", "45"))
    assert verdict.level == "warn" and verdict.exit_code == 4
    assert verdict.reasons[0] == "warn: 80 decode steps ran without a graph (sizes 36..46)"
    assert render(verdict).startswith("warn: 80 decode steps ran without a graph")


def test_a_crashed_capture_differs_with_the_crash_first() -> None:
    """https://github.com/vllm-project/vllm/issues/4432: `RuntimeError: CUDA error: operation
    failed ... during capture` after the capture began. A V0 log cannot be judged (the crash
    is still named); judged as a release cgconfig models, it differs, the crash first. (No
    published V1 log crashing at `45/51` was found; the rule is the same: an error after the
    first capture line, with the bar's progress when one is printed.)"""
    plain = _judge("vllm_v0_4432_capture_crash.log")
    assert plain.level == "cannot judge"
    assert any("the capture crashed: RuntimeError: CUDA error" in r for r in plain.reasons)
    named = _judge("vllm_v0_4432_capture_crash.log", engine_version="vllm==0.33.0")
    assert named.level == "differs"
    assert named.reasons[0].startswith("the capture crashed: RuntimeError: CUDA error")


def test_a_capture_cut_short_is_a_warning_not_the_total() -> None:
    """https://github.com/vllm-project/vllm/pull/45150: the excerpt ends at 32/51."""
    verdict = _judge("vllm_45150_partial.log")
    capture = verdict.record.captures["mixed PIECEWISE"]
    assert (capture.done, capture.count, capture.incomplete) == (32, 51, True)
    assert verdict.level == "warn"
    assert "the log ends while capturing (mixed PIECEWISE at 32/51)" in verdict.reasons[0]


def test_trtllm_graph_count_is_the_announced_one_not_the_warmup_lines() -> None:
    """jeansblog/trt_llm README: `Creating CUDA graph instances for 11 batch sizes` with 4 of
    the 11 warm-up lines in the excerpt: 11 graphs, not 4."""
    record = read_log(str(LOGS / "trtllm_jeansblog_4_warmups.log"))
    assert record.captures["decode"].graphs == 11 and record.captures["decode"].sizes is None


def test_trtllm_pytorch_config_padding_is_used() -> None:
    """jeansblog/trt_llm README log (1.1.0rc3): `PyTorchConfig(... cuda_graph_max_batch_size=128,
    cuda_graph_padding_enabled=True ...)`, no launch line: the plan pads, as the server did."""
    verdict = _judge("trtllm_1.1.0rc3_pytorchconfig.log")
    names = {f.name: f.value for f in verdict.facts}
    assert names == {"gpu_memory_gib": 119.7, "cuda_graph_padding": True,
                     "cuda_graph_max_batch_size": 128}
    assert verdict.level == "matches"
    assert verdict.comparison is not None
    assert "(cuda_graph_config from the log)" in verdict.comparison.argv


def test_sglang_unlabelled_progress_bar_counts_the_capture() -> None:
    """An SGLang 0.4.x log: `100%|██████████| 23/23` between begin and end."""
    record = read_log(str(LOGS / "sglang_0.4_bare_bar_23.log"))
    assert record.captures["decode"].graphs == 23


def test_trtllm_skipped_warmup_differs() -> None:
    """https://github.com/NVIDIA/TensorRT-LLM/pull/18242 (2026): `Skipping CUDA graph warmup
    (greedy) for batch size=32, draft_len=7: not enough KV cache space.` was exit 2."""
    verdict = _judge("trtllm_18242_skip_warmup.log")
    assert verdict.level == "differs"
    assert verdict.reasons[0].startswith("TensorRT-LLM skipped a CUDA graph: Skipping CUDA "
                                         "graph warmup (greedy) for batch size=32")


def test_vllm_v0_capture_line_and_v0_06_logs_are_read() -> None:
    """https://github.com/mlcommons/inference/issues/2408 (`Capturing the model for CUDA
    graphs`), https://github.com/rust-lang/www.rust-lang.org/issues/2107 (`Initializing an LLM
    engine (v0.6.6)`): read (was exit 2), and cannot be judged."""
    v0 = read_log(str(LOGS / "vllm_v0_mlcommons2408.log"))
    assert v0.era == "vLLM V0 engine (0.10 and older)" and "decode FULL" in v0.captures
    old = read_log(str(LOGS / "vllm_v0_0.6.6_rust2107.log"))
    assert old.version == "0.6.6"
    assert verify(old, []).level == "cannot judge"


def test_unshown_release_that_differs_cannot_be_judged() -> None:
    """https://github.com/vllm-project/vllm/issues/25848: 67 FULL graphs (2025-09), no
    version line: the difference may be the release's."""
    verdict = _judge("vllm_25848_full67.log")
    assert verdict.level == "cannot judge"
    assert "may be the release's" in verdict.reasons[0]
    assert verdict.comparison is not None and verdict.comparison.differences


@pytest.mark.parametrize(("name", "code"), [("vllm_0.11.0_qwen3vl_tp4.log", 3),
                                            ("vllm_45150_partial.log", 4),
                                            ("trtllm_18242_skip_warmup.log", 1),
                                            ("vllm_0.26.0_mrv2_t4.log", 0)])
def test_exit_codes(name: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(LOGS / name)]) == code
    out = capsys.readouterr().out
    assert out.split(":", 1)[0] == {0: "matches", 1: "differs", 3: "cannot judge",
                                    4: "warn"}[code]


@pytest.mark.parametrize("spec", ["nosuch==1", "vllm==abc", "sglang==0.5.20"])
def test_engine_version_bad_text_is_bad_input(spec: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Malformed text, or a release of another engine than the log's: exit 2, one line."""
    assert main(["verify", str(LOGS / "vllm_45150_partial.log"), "--engine-version", spec]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cgconfig: error: --engine-version") and err.count("\n") == 1


def test_a_launch_line_of_another_engine_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(LOGS / "vllm_0.26.0_mrv2_t4.log"), "python", "-m",
                 "sglang.launch_server", "--model-path", "m"]) == 2
    assert "the log is vLLM's" in capsys.readouterr().err


def test_help_follows_the_terminal_width(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    for columns in ("50", "120"):
        monkeypatch.setenv("COLUMNS", columns)
        assert main(["verify", "--help"]) == 0
        out = capsys.readouterr().out
        assert max(map(len, out.splitlines())) <= int(columns)
        assert "3 cannot judge" in " ".join(out.split())


def test_printed_arguments_that_look_like_options_do_not_abort() -> None:
    """#35 O3: `--tp-size=-x` inline, and a switch printed with a non-boolean value."""
    lines = ["[t] server_args={'model_path': 'm', 'tp_size': '-x', 'disable_cuda_graph': 'yes'}",
             "[t TP0] Capture target decode CUDA graph begin. backend=full, "
             "num_tokens_per_req=1, bs=[1, 2], avail mem=60.00 GB"]
    verdict = verify(read_lines(lines, "log"), [])
    assert verdict.comparison is not None
    assert any("left out --tp-size" in n for n in verdict.notes)
    assert any("disable_cuda_graph='yes'" in n for n in verdict.comparison.notes + verdict.notes)


@pytest.mark.parametrize(("spec", "level"), [("trtllm==1.1.0", "differs"),
                                             ("trtllm==0.9.0", "cannot judge")])
def test_trtllm_engine_version_1x_is_judged_by_main(spec: str, level: str) -> None:
    """TensorRT-LLM 1.x (named or printed) is answered by the main-branch rules; 0.x (the
    TensorRT engine backend) cannot be judged."""
    assert _judge("trtllm_18242_skip_warmup.log", engine_version=spec).level == level
