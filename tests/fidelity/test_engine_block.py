"""The plan's ``engine`` block: SGLang 0.5.23's own engine settings, checked against SGLang.

The ratchet compares every recorded case SGLang resolved (``compare_engine.py``); the named
cases below carry the oracle's answer inline, each with the command that produced it
(``cd oracle && vendor/venv/bin/python sglang_oracle.py ARGS``, printing ``extra``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import compare_engine

from cgconfig.api import resolve_args
from cgconfig.cli.main import main
from cgconfig.plan_schema import PlanDocument


def test_engine_block_matches_recorded_sglang_values() -> None:
    found = compare_engine.open_differences()
    listed = compare_engine.known()
    new = {cid: f for cid, f in found.items() if listed.get(cid) != f}
    fixed = sorted(cid for cid in listed if cid not in found)
    assert not new, (f"{len(new)} cases' engine values now differ from SGLang's (first: "
                     f"{sorted(new.items())[:10]}); inspect with: "
                     "python tests/fidelity/compare_engine.py --ids ID")
    assert not fixed, f"listed engine differences now agree {fixed[:10]}: run " \
        "python tests/fidelity/compare_engine.py --update-known"


def test_ratchet_covers_every_field_on_most_of_the_corpus() -> None:
    # The comparison must not pass by comparing nothing: every field is recorded, and cgconfig
    # plans at least 2,000 of the cases SGLang resolved.
    cases = compare_engine.resolved_cases()
    assert len(cases) >= 2000
    for name in compare_engine.FIELDS:
        assert all(name in c["answer"]["extra"] for c in cases), name
    refused = [c for c, f in compare_engine.differences().items() if f == ["cgconfig-refuses"]]
    assert len(cases) - len(refused) >= 2000


def engine(*argv: str) -> dict[str, object]:
    return {k: v["value"] for k, v in resolve_args(list(argv)).engine.items()}


#: (cgconfig argv, oracle argv, SGLang 0.5.23's answer for the fields given).
ORACLE_CASES = [
    # sglang_oracle.py --gpu-memory-gib 80
    (["--gpu-memory-gib", "80"], {"attention_backend": "fa3", "chunked_prefill_size": 8192,
                                  "mem_fraction_static": 0.83, "max_running_requests": None,
                                  "device": "cuda"}),
    # sglang_oracle.py --gpu-memory-gib 80 --enable-dp-attention --dp-size 2 --tp-size 2
    (["--gpu-memory-gib", "80", "--enable-dp-attention", "--dp-size", "2", "--tp-size", "2"],
     {"chunked_prefill_size": 4096, "mem_fraction_static": 0.81}),
    # sglang_oracle.py --model-arch deepseek_v3 --sm 100 --gpu-memory-gib 180
    (["--model-arch", "DeepseekV3ForCausalLM", "--use-mla", "--gpu-sm", "100",
      "--gpu-memory-gib", "180"],
     {"attention_backend": "trtllm_mla", "chunked_prefill_size": 16384,
      "mem_fraction_static": 0.849}),
    # sglang_oracle.py --gpu-memory-gib 80 --attention-backend torch_native: graphs are
    # disabled after the memory hook, so the fraction still reserves for them.
    (["--gpu-memory-gib", "80", "--attention-backend", "torch_native"],
     {"attention_backend": "torch_native", "mem_fraction_static": 0.83}),
    # sglang_oracle.py --chunked-prefill-size -1 --max-prefill-tokens 4096 --gpu-memory-gib 40
    (["--chunked-prefill-size", "-1", "--max-prefill-tokens", "4096", "--gpu-memory-gib", "40"],
     {"chunked_prefill_size": -1, "mem_fraction_static": 0.833}),
    # sglang_oracle.py --gpu-memory-gib 80 --mem-fraction-static 0.8
    (["--gpu-memory-gib", "80", "--mem-fraction-static", "0.8"], {"mem_fraction_static": 0.8}),
    # sglang_oracle.py --gpu-memory-gib 80 --speculative-algorithm NGRAM
    (["--gpu-memory-gib", "80", "--speculative-algorithm", "NGRAM"],
     {"max_running_requests": 48, "speculative_num_draft_tokens": 12}),
    # sglang_oracle.py --gpu-memory-gib 80 --speculative-algorithm DFLASH
    #   --speculative-draft-model-path @llama
    (["--gpu-memory-gib", "80", "--speculative-algorithm", "DFLASH"],
     {"max_running_requests": 48, "speculative_num_draft_tokens": 16}),
]


@pytest.mark.parametrize(("argv", "want"), ORACLE_CASES, ids=lambda v: " ".join(v)
                         if isinstance(v, list) else "")
def test_engine_values_match_the_oracle(argv: list[str], want: dict[str, object]) -> None:
    got = engine(*argv)
    assert {k: got[k] for k in want} == want


def test_every_value_cites_its_flag_or_upstream_function() -> None:
    block = resolve_args(["--gpu-memory-gib", "80", "--speculative-algorithm", "NGRAM"]).engine
    assert set(block) == {k.split(".", 1)[1] for k in __import__(
        "cgconfig.cli.explain_cmd", fromlist=["ENGINE_KEYS"]).ENGINE_KEYS}
    for name, entry in block.items():
        assert entry["source"].startswith(("--", "sglang 0.5.23 python/sglang/srt/")), name
        assert entry["why"], name
    assert block["mem_fraction_static"]["source"].endswith(
        "memory_hook.py:handle_gpu_memory_settings")
    assert block["max_running_requests"]["source"].endswith("speculative_hook.py:"
                                                            "_handle_eagle_family")


def test_other_dialects_have_no_engine_block() -> None:
    # The engine block is SGLang-only: vLLM's equivalents are not modelled.
    plan = resolve_args(["--dialect", "vllm", "--max-num-seqs", "16"])
    assert plan.engine == {}
    assert plan.to_dict()["engine"] == {}


def test_engine_block_in_json_validates_against_the_schema(capsys) -> None:
    assert main(["resolve", "--gpu-memory-gib", "80", "-o", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    PlanDocument.model_validate(data)
    assert data["engine"]["attention_backend"]["value"] == "fa3"


def test_engine_line_in_the_table(capsys) -> None:
    assert main(["resolve", "--gpu-memory-gib", "80", "--speculative-algorithm", "NGRAM"]) == 0
    out = capsys.readouterr().out
    assert ("SGLang 0.5.23 engine: attention fa3 · chunked prefill 8192 · mem_fraction_static "
            "0.83 · max running requests 48 · draft tokens 12") in out


def test_explain_names_where_an_engine_value_came_from(capsys) -> None:
    assert main(["explain", "engine.max_running_requests", "engine.attention_backend",
                 "--speculative-algorithm", "EAGLE", "--gpu-sm", "100"]) == 0
    out = capsys.readouterr().out
    assert "engine.max_running_requests = 48    [set by SGLang 0.5.23]" in out
    assert "speculative_hook.py:_handle_eagle_family" in out
    # EAGLE without a topk on Blackwell: trtllm_mha needs a given topk, so flashinfer.
    assert 'engine.attention_backend = "flashinfer"' in out
    assert "get_default_attn_backend" in out


def test_explain_refuses_an_unknown_engine_key(capsys) -> None:
    assert main(["explain", "engine.mem_fraction"]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'engine.mem_fraction'" in err
    assert "did you mean 'engine.mem_fraction_static'" in err


def test_memory_hook_sees_graphs_that_later_hooks_disable() -> None:
    # Pipeline parallelism disables breakable prefill before the memory hook, flex_attention
    # disables both phases after it; the fraction reserves for decode only (recorded case 2864:
    # deepseek_v3, 24 GiB, --cuda-graph-max-bs-decode 64 --tp-size 4 --pp-size 2
    # --attention-backend flex_attention → 0.682).
    case = {c["id"]: c for c in compare_engine.resolved_cases()}[2864]
    assert compare_engine.engine_values(case)["mem_fraction_static"] == 0.682


def test_given_fraction_still_takes_aiters_long_context_factor() -> None:
    # sglang_oracle.py --platform hip --gpu-memory-gib 80 --mem-fraction-static 0.8 → 0.68
    # (aiter, the llama template's 131,072-token context > 8,192: × 0.85), read from the
    # model's config.json under --model-path.
    case = {"argv": ["--mem-fraction-static", "0.8"], "model": "llama", "gpu_memory_gib": 80,
            "sm": 90, "platform": "hip"}
    got = compare_engine.engine_values(case)
    assert got is not None
    assert (got["attention_backend"], got["mem_fraction_static"]) == ("aiter", 0.8 * 0.85)


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "invalid JSON"), ("[1, 2]", "must be a JSON object"),
    ('{"max_position_embeddings": "long"}', "max_position_embeddings must be a number")])
def test_malformed_model_config_is_one_input_error(tmp_path: Path, content: str,
                                                   message: str) -> None:
    # The engine block reads the model's config.json through the model source's one reader,
    # which refuses a malformed file (exit 2) before any step runs.
    from cgconfig.errors import InputError

    (tmp_path / "config.json").write_text(content)
    with pytest.raises(InputError, match=message):
        engine("--model-path", str(tmp_path), "--gpu-memory-gib", "80", "--device", "hip")


def test_model_config_without_usable_sections_keeps_the_defaults(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"text_config": 3, "vision_config": []}')
    got = engine("--model-path", str(tmp_path), "--gpu-memory-gib", "80", "--device", "hip")
    assert got["attention_backend"] == "aiter"
    assert got["mem_fraction_static"] == engine("--gpu-memory-gib", "80",
                                                "--device", "hip")["mem_fraction_static"]


def test_model_config_that_is_not_a_regular_file_is_not_read(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "config.json")  # opening a FIFO would block
    got = engine("--model-path", str(tmp_path), "--gpu-memory-gib", "80")
    assert got["attention_backend"] == "fa3"


def test_memory_hook_sees_prefill_off_before_prefill_cp_turns_it_back_on() -> None:
    # Corpus case 861 (sglang_oracle.py --platform cuda --sm 100 --gpu-memory-gib 256
    # --cuda-graph-bs-decode 1 20 100 --enable-torch-compile --tp-size 4 --attn-cp-size 4
    # --enable-prefill-cp --cp-strategy zigzag --enable-return-hidden-states
    # --max-running-requests 300 → mem_fraction_static 0.902, prefill breakable): SGLang sizes
    # memory with prefill off, since its compatibility check runs before the backend resolves.
    case = next(c for c in compare_engine.compare.load("sglang") if c["id"] == 861)
    got = compare_engine.engine_values(case)
    assert got is not None
    assert got["mem_fraction_static"] == case["answer"]["extra"]["mem_fraction_static"] == 0.902
    assert case["answer"]["prefill"]["backend"] == "breakable"
