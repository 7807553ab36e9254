"""Each finding kind on a launch line that shows it, with the file line of the flag behind it,
and the lines next to it that must not show it."""

from __future__ import annotations

from tests.lint.conftest import Run, findings, ids

SGLANG = "python3 -m sglang.launch_server --model-path m"


def test_eager_requests_sglang_at_the_running_request_flag(check: Run) -> None:
    # InferenceX #411's shape: a running-request cap next to the graph maximum.
    script = (f"{SGLANG} --tp 8 --gpu-memory-gib 141 \\\n"
              "    --cuda-graph-max-bs-decode 256 \\\n"
              "    --max-running-requests 1024\n")
    code, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    assert code == 0  # a warning: under --fail-on error, not a failure
    (found,) = findings(out)
    assert (found["id"], found["line"]) == ("CG001", 3)
    assert "batches of 257..1024 requests run eagerly, 75% of the range 1..1024" in \
        found["message"]
    assert found["extra"] == {"eager_requests": [257, 1024], "eager_share": 0.75,
                              "largest_captured": 256}
    assert "--cuda-graph-max-bs-decode to 1024" in found["fix"]


def test_covered_running_requests_are_clean(check: Run) -> None:
    script = f"{SGLANG} --gpu-memory-gib 141 --cuda-graph-max-bs-decode 256 " \
             "--max-running-requests 256\n"
    code, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    assert (code, ids(out)) == (0, [])


def test_eager_requests_vllm_max_num_seqs(check: Run) -> None:
    # InferenceX #1755: concurrency 1024 against vLLM's default capture list (512 tokens).
    _code, out, _ = check("-o", "json", "run.sh",
                         files={"run.sh": "vllm serve m \\\n  --max-num-seqs 1024\n"})
    (found,) = findings(out)
    assert (found["id"], found["line"]) == ("CG001", 2)
    assert "batches of 513..1024 requests run eagerly" in found["message"]
    assert "vLLM 0.33.0" in found["message"]


def test_sglang_default_sizes_on_unknown_gpu_memory_are_not_guessed(check: Run) -> None:
    """SGLang's default decode maximum follows the GPU-memory tier: with no memory given the
    largest size is unknown, so no eager range is claimed (``--gpu-memory-gib`` gives it)."""
    script = f"{SGLANG} --tp 8 --max-running-requests 1024\n"
    _, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    assert ids(out) == []
    _code, out, _ = check("-o", "json", "--gpu-memory-gib", "141", "run.sh")
    assert ids(out) == [("CG001", 1)]


def test_refused_flag_names_the_replacement(check: Run) -> None:
    script = f"{SGLANG} \\\n  --cuda-graph-max-bs 64\n"
    # no release pinned: the newest refuses it, the one the file runs may not
    code, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    assert code == 0 and ids(out) == [("CG012", 2)]
    code, out, _ = check("-o", "json", "--engine-version", "sglang==0.5.23", "run.sh")
    assert code == 1  # an error at the release named
    (found,) = findings(out)
    assert (found["id"], found["line"], found["severity"]) == ("CG002", 2, "error")
    assert "was removed in SGLang 0.5.20" in found["message"]
    assert found["fix"] == "use --cuda-graph-max-bs-decode"
    # the release that still reads it: a deprecation, not a finding
    code, out, _ = check("-o", "json", "--engine-version", "sglang==0.5.19", "run.sh")
    assert (code, ids(out)) == (0, [])


def test_unknown_flag_at_the_pinned_release(check: Run) -> None:
    _code, out, _ = check("-o", "json", "run.sh",
                         files={"run.sh": f"{SGLANG} --mem-fraction-statc 0.8\n"})
    (found,) = findings(out)
    assert found["id"] == "CG012" and "did you mean '--mem-fraction-static'" in found["message"]


def test_downgrade_by_setting_at_the_flag_that_causes_it(check: Run) -> None:
    script = (f"{SGLANG} \\\n  --cuda-graph-backend-decode full \\\n"
              "  --attention-backend torch_native\n")
    _code, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    (found,) = findings(out)
    assert (found["id"], found["line"]) == ("CG003", 3)
    assert found["rule"] == "attention.torch-native-eager"
    assert "overriding --cuda-graph-backend-decode" in found["message"]
    assert "--attention-backend fa3" in found["fix"]


def test_intended_policies_are_not_findings(check: Run) -> None:
    # a prefill instance drops its decode graphs: intended, not a downgrade of the user's
    script = f"{SGLANG} --disaggregation-mode prefill --gpu-memory-gib 80\n"
    assert ids(check("-o", "json", "run.sh", files={"run.sh": script})[1]) == []


def test_explicit_key_skipping_an_incompatibility(check: Run) -> None:
    script = (f"{SGLANG} --model-arch DeepseekV4ForCausalLM --gpu-memory-gib 80 \\\n"
              "  --cuda-graph-backend-prefill breakable\n")
    _code, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    (found,) = findings(out)
    assert (found["id"], found["line"], found["rule"]) == ("CG004", 2, "breakable.deepseek-v4")
    assert "runs out of memory" in found["message"]


def test_wrong_unit_under_speculative_decoding_vllm(check: Run) -> None:
    spec = '{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}'
    script = (f"vllm serve m --speculative-config '{spec}' \\\n  --max-num-seqs 64 \\\n"
              "  --max-cudagraph-capture-size 64\n")
    _code, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    (found,) = findings(out)  # the unit explains the eager range: one finding, not two
    assert (found["id"], found["line"]) == ("CG005", 3)
    assert "64 covers 16 requests, not 64" in found["message"]
    assert found["fix"] == "set --max-cudagraph-capture-size to 256 (64 × 4)"
    fixed = script.replace("capture-size 64", "capture-size 256")
    assert ids(check("-o", "json", "run.sh", files={"run.sh": fixed})[1]) == []


def test_unresolved_variable_the_plan_depends_on(check: Run) -> None:
    script = f"{SGLANG} \\\n  --tp $TP \\\n  --port $PORT\n"
    _, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    (found,) = findings(out)  # $PORT: the plan does not read it
    assert (found["id"], found["line"], found["severity"]) == ("CG006", 2, "note")
    assert "--set TP=VALUE" in found["fix"]
    _code, out, _ = check("-o", "json", "--set", "TP=8", "run.sh")
    assert ids(out) == []


def test_engine_refuses_the_line(check: Run) -> None:
    script = f"{SGLANG} --enable-dp-attention --tp 2 --dp 3\n"
    code, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    (found,) = findings(out)
    assert (found["id"], code) == ("CG007", 1)
    assert "refuse.attn-dp-divides-tp" in found["message"]


def test_newest_release_differs_is_opt_in(check: Run) -> None:
    script = f"{SGLANG} --gpu-memory-gib 30\n"
    files = {"run.sh": script}
    assert ids(check("-o", "json", "--engine-version", "sglang==0.5.19", "run.sh",
                     files=files)[1]) == []
    _code, out, _ = check("-o", "json", "--engine-version", "sglang==0.5.19", "--newest",
                         "run.sh")
    (found,) = findings(out)
    assert found["id"] == "CG009" and "at SGLang 0.5.23 instead of SGLang 0.5.19" in \
        found["message"]
    assert "decode sizes 1..24 (7 sizes) → 1..48" in found["message"]


def test_unsupported_pinned_release_is_a_note(check: Run) -> None:
    code, out, _ = check("-o", "json", "--engine-version", "sglang==0.5.7", "run.sh",
                         files={"run.sh": f"{SGLANG}\n"})
    (found,) = findings(out)
    assert (found["id"], found["severity"], code) == ("CG008", "note", 0)
    assert "SGLang 0.5.8 to 0.5.23" in found["message"]


def test_engine_version_names_one_engine_only(check: Run) -> None:
    script = f"{SGLANG} --cuda-graph-max-bs 64\nvllm serve m --max-num-seqs 1024\n"  # 0.5.19 reads it
    _code, out, _ = check("-o", "json", "--engine-version", "sglang==0.5.19", "run.sh",
                         files={"run.sh": script})
    assert ids(out) == [("CG001", 2)]  # the vLLM line keeps its own (newest) release


def test_missing_options_file_is_not_checked(check: Run) -> None:
    _code, out, _ = check("-o", "json", "run.sh", files={
        "run.sh": "trtllm-serve m --extra_llm_api_options nothere.yaml\n"})
    (found,) = findings(out)
    assert (found["id"], found["severity"]) == ("CG011", "note")


def test_template_placeholders_are_not_refusals(check: Run) -> None:
    # srt-slurm's sweep templates and documentation write placeholders for values
    script = f"{SGLANG} --chunked-prefill-size {{chunked_prefill_size}}\n"
    doc = "```bash\nvllm serve m \\\n  --max-num-seqs ...\n```\n"
    _, out, _ = check("-o", "json", "run.sh", "doc.md", files={"run.sh": script, "doc.md": doc})
    assert [(f["id"], f["severity"]) for f in findings(out)] == [("CG006", "note")] * 2


def test_sizes_the_engine_never_captures(check: Run) -> None:
    # TensorRT-LLM #14454's shape: batch_sizes up to 1024 beside max_batch_size 128
    options = ("max_batch_size: 128\ncuda_graph_config:\n  enable_padding: true\n"
               "  batch_sizes: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 768, 1024]\n")
    _, out, _ = check("-o", "json", "gen.yaml", files={"gen.yaml": options})
    (found,) = findings(out)
    assert (found["id"], found["rule"], found["severity"]) == ("CG013", "trtllm.capture-filter",
                                                               "note")
    assert "never captures the decode sizes 256..1024 (4 sizes)" in found["message"]
    # SGLang's request pool drops the graphs above it; its own default list is not reported
    script = (f"{SGLANG} --cuda-graph-max-bs-decode 512 --max-running-requests 64\n"
              f"{SGLANG} --max-running-requests 64 --gpu-memory-gib 80\n")
    _code, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    assert ids(out) == [("CG013", 1)]


def test_dp_attention_compares_one_ranks_share_with_its_graphs(check: Run) -> None:
    # srt-slurm #168's hand rule: max-running-requests <= cuda-graph-max-bs × dp-size
    script = (f"{SGLANG} --tp 8 --dp 8 --enable-dp-attention --cuda-graph-max-bs-decode 128 "
              "--max-running-requests 1024 --gpu-memory-gib 141\n")
    assert ids(check("-o", "json", "run.sh", files={"run.sh": script})[1]) == []
    # each rank's scheduler runs 2048 // 8 = 256 requests, twice its largest graph
    _code, out, _ = check("-o", "json", "run.sh",
                          files={"run.sh": script.replace("1024", "2048")})
    (found,) = findings(out)
    assert found["id"] == "CG001"
    assert found["message"].startswith("--max-running-requests 2048 // attention-DP size 8 = 256 "
                                       "is above the largest decode CUDA graph")
    assert "batches of 129..256 requests run eagerly" in found["message"]


def test_graphs_captured_above_one_ranks_share_are_never_replayed(check: Run) -> None:
    # SGLang 0.5.8: under DP attention a rank's request pool is the whole
    # --max-running-requests (its capture filter keeps 1..256), while its scheduler runs
    # 1024 // 8 = 128 requests (ModelRunner.initialize): the graphs above 128 never replay
    line = (f"{SGLANG} --tp 8 --dp 8 --enable-dp-attention --cuda-graph-max-bs 256 "
            "--max-running-requests 1024 --gpu-memory-gib 80")
    _code, out, _ = check("-o", "json", "run.sh", files={
        "run.sh": f"{line} --engine-version sglang==0.5.8\n"})
    (found,) = findings(out)
    assert (found["id"], found["severity"], found["subject"]) == ("CG014", "warning",
                                                                  "--cuda-graph-max-bs")
    assert "the 16 graphs 136..256 are captured and never replayed" in found["message"]
    assert "request pool 1024" in found["message"]
    assert found["fix"].startswith("lower --cuda-graph-max-bs to 128, or raise "
                                   "--max-running-requests to 2048 (256 × 8 ranks)")
    assert found["extra"] == {"never_replayed": [136, 256], "graphs": 16, "running_bound": 128}
    # 0.5.10 sizes each rank's pool from its share, so its filter drops them (CG013 instead)
    _code, out, _ = check("-o", "json", "run.sh", files={
        "run.sh": f"{line} --engine-version sglang==0.5.10\n"})
    assert ids(out) == [("CG013", 1)]
    # graphs within the share, and a line with no running-request bound, are clean
    for clean in (line.replace("--cuda-graph-max-bs 256", "--cuda-graph-max-bs 128"),
                  line.replace("--max-running-requests 1024", "")):
        _code, out, _ = check("-o", "json", "run.sh", files={
            "run.sh": f"{clean} --engine-version sglang==0.5.8\n"})
        assert ids(out) == [], clean


def test_never_replayed_is_a_kind_check_accepts(check: Run) -> None:
    line = (f"{SGLANG} --tp 8 --dp 8 --enable-dp-attention --max-running-requests 512 "
            "--gpu-memory-gib 80 --engine-version sglang==0.5.8")
    _code, out, _ = check("-o", "json", "run.sh", "--select", "graphs-never-replayed",
                          files={"run.sh": f"{line}\n"})
    assert [f["id"] for f in findings(out)] == ["CG014"]  # the default sizes too
    _code, out, _ = check("-o", "json", "run.sh", files={
        "run.sh": f"{line}  # cgconfig: ignore[CG014]\n"})
    assert findings(out) == []


def test_fix_names_the_flags_of_the_files_release(check: Run) -> None:
    # SGLang 0.5.8 has no --cuda-graph-max-bs-decode; under DP attention lowering the bound
    # means the whole --max-running-requests, the share times the ranks
    script = (f"{SGLANG} --engine-version sglang==0.5.8 --tp 8 --dp 8 --enable-dp-attention "
              "--cuda-graph-max-bs 32 --max-running-requests 512 --gpu-memory-gib 141\n")
    _code, out, _ = check("-o", "json", "run.sh", files={"run.sh": script})
    (found,) = findings(out)
    assert found["id"] == "CG001"
    assert found["fix"] == ("raise --cuda-graph-max-bs to 64, or lower --max-running-requests "
                            "to 256 (32 × 8 ranks)")
