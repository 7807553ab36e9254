"""SGLang 0.5.23 classes of issue #20 item 5, each a named test against SGLang's own answers.

``sglang_classes.jsonl`` holds hand-written cases (a ``class`` each) answered by the SGLang
0.5.23 oracle (``python tests/fidelity/record.py --oracle DIR --answer
tests/fidelity/sglang_classes.jsonl``); every case must agree as ``compare.py`` compares the
corpus. The unknown-SM and ``config.json`` classes cannot be written as corpus cases (the
replay always gives the machine's SM, and the corpus models are fixed), so their tests state
the engine's answer, recorded from the same oracle, next to the input.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import compare
import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError

#: The release that answered the cases (``record.py --answer``): they are answered as it.
RELEASE = compare.CORPUS_RELEASE["sglang"]
CASES = [{**json.loads(line), "engine_version": RELEASE}
         for line in (compare.HERE / "sglang_classes.jsonl").read_text().splitlines()]


def _cases(name: str) -> list[dict[str, Any]]:
    found = [c for c in CASES if c["class"] == name]
    assert found, name
    return found


def _agree(name: str) -> None:
    for case in _cases(name):
        assert compare.sglang_mismatch(case) is None, (case["argv"], case["answer"],
                                                       compare.sglang_outcome(case))


def test_two_cuda_graph_configs_keep_the_last() -> None:
    """SGLang's argparse keeps the last ``--cuda-graph-config``; nothing of the first is read
    (decode max_bs 64 of the first is not in the plan, nor its lock)."""
    _agree("two-cuda-graph-configs-keep-the-last")
    first = _cases("two-cuda-graph-configs-keep-the-last")[0]
    assert first["answer"]["decode"]["max_bs"] == 256
    assert first["answer"]["locked"] == ["prefill.backend"]


def test_null_max_bs_keeps_the_default_and_locks_it() -> None:
    """``{"decode":{"max_bs":null}}``: SGLang keeps the default and locks the key, so Qwen3-VL's
    running-request expansion (300) no longer applies: 256. A null backend is refused by both."""
    _agree("null-max-bs-default-locked")
    by_argv = {tuple(c["argv"]): c["answer"] for c in _cases("null-max-bs-default-locked")}
    locked_null = by_argv[("--max-running-requests", "300", "--cuda-graph-config",
                           '{"decode":{"max_bs":null}}')]
    assert (locked_null["decode"]["max_bs"], locked_null["locked"]) == (256, ["decode.max_bs"])
    assert by_argv[("--max-running-requests", "300")]["decode"]["max_bs"] == 300


def test_tokenspeed_mla_is_read_as_sglang_renames_it() -> None:
    """``tokenspeed_mla`` is SGLang's deprecated ``cutedsl_mla``; as the prefill backend it
    becomes ``trtllm_mla`` (decode-only cutedsl), so the line is planned, not refused."""
    _agree("tokenspeed-mla-renamed")
    plan = resolve_args(["--gpu-sm", "90", "--gpu-memory-gib", "80",
                         "--prefill-attention-backend", "tokenspeed_mla"])
    assert plan.engine["prefill_attention_backend"]["value"] == "trtllm_mla"
    assert any("tokenspeed_mla is deprecated" in d for d in plan.deprecations)


@pytest.mark.parametrize("argv", [
    ["--decode-attention-backend", "cutedsl_mla"],
    ["--decode-attention-backend", "trtllm_mla"],
    ["--attention-backend", "trtllm_mha", "--tp-size", "4", "--attn-cp-size", "2"],
])
def test_unknown_sm_refusals_need_a_known_sm(argv: list[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang 0.5.23 on SM 90 refuses each of these lines (oracle ``--sm 90``: "CuteDSL MLA
    backend is only supported on Blackwell GPUs (SM100)", "TRTLLM MLA backend is only
    supported on Blackwell GPUs (SM100/SM12x)", "Prefill context parallelism with the TRTLLM
    MHA prefill backend requires SM100") and on SM 100 resolves them. cgconfig refuses them with
    ``--gpu-sm 90`` and plans them with ``--gpu-sm 100``; with no SM known it does not guess a
    refusal (a Blackwell-only backend on the line says the GPU is a Blackwell): the default
    backends alone take Hopper's, as docs/fidelity.md says."""
    monkeypatch.setenv("PATH", "")  # no nvidia-smi: the SM is unknown
    with pytest.raises(CgConfigError, match=r"SM 90"):
        resolve_args([*argv, "--gpu-sm", "90"])
    resolve_args([*argv, "--gpu-sm", "100"])
    resolve_args(argv)


def _model(tmp_path: Path, extra: str) -> str:
    """The corpus's Llama-3 config.json with ``extra`` (raw JSON members) appended."""
    text = (compare.HERE / "models" / "llama.json").read_text().rstrip().rstrip("}")
    (tmp_path / "config.json").write_text(f"{text},\n {extra}\n}}\n")
    return str(tmp_path)


def test_config_json_with_infinity_is_read_as_the_engine_reads_it(tmp_path: Path) -> None:
    """SGLang 0.5.23 reads a config.json carrying ``Infinity``/``NaN`` at a key no config class
    types as an integer (oracle ``--model-config '{"custom_scale": Infinity}'``: resolves,
    decode max_bs 256, prefill breakable); the plan is the one without that key."""
    base = ["--gpu-sm", "90", "--gpu-memory-gib", "80"]
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(compare.HERE / "models" / "llama.json", plain / "config.json")
    want = resolve_args([*base, "--model-path", str(plain)]).to_dict()["config"]
    for extra in ('"custom_scale": Infinity', '"rms_norm_eps": NaN', '"x": -Infinity'):
        (tmp_path / "m").mkdir(exist_ok=True)
        got = resolve_args([*base, "--model-path", _model(tmp_path / "m", extra)])
        assert got.to_dict()["config"] == want, extra


@pytest.mark.parametrize("extra", ['"max_position_embeddings": Infinity',
                                   '"num_key_value_heads": Infinity',
                                   '"hidden_size": NaN'])
def test_config_json_with_infinity_at_an_integer_key_is_refused(tmp_path: Path,
                                                                extra: str) -> None:
    """Where transformers types the key as an integer SGLang 0.5.23 refuses the config
    (oracle: ``StrictDataclassFieldValidationError ... expected int, got float``): one line
    naming the key and its line, exit 2."""
    key = extra.split('"')[1]
    with pytest.raises(CgConfigError, match=rf"config.json:\d+: {key} is (inf|nan)"):
        resolve_args(["--gpu-sm", "90", "--model-path", _model(tmp_path, extra)])


def test_config_json_infinity_keeps_the_input_bounds(tmp_path: Path) -> None:
    """Reading NaN/Infinity does not lift the other bounds: too-long integers still fail."""
    with pytest.raises(CgConfigError, match="too long"):
        resolve_args(["--gpu-sm", "90", "--model-path",
                      _model(tmp_path, '"custom": ' + "9" * 5000)])
