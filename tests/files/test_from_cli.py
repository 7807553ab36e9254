"""``--from FILE`` on resolve, explain, diff and verify: one plan per launch, labelled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig.cli.main import main

DATA = Path(__file__).resolve().parent.parent / "data" / "files"
DGD = str(DATA / "dynamo-sglang-disagg-v1beta1.yaml")
KIMI = str(DATA / "ome-kimi-k2-pd-rt.yaml")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_resolve_gives_one_plan_per_launch_as_a_json_list(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["resolve", "--from", DGD, "--gpu-memory-gib", "80", "-o", "json"], capsys)
    assert rc == 0
    items = json.loads(out)
    assert [(i["launch"]["label"].rsplit("/", 1)[-1], i["launch"]["role"]) for i in items] == [
        ("dynamo-sglang-disagg-v1beta1.yaml:42", "decode"),
        ("dynamo-sglang-disagg-v1beta1.yaml:80", "prefill")]
    decode, prefill = (i["result"] for i in items)
    assert decode["facts"]["disaggregation_mode"] == "decode"
    assert decode["facts"]["gpu_count"] == 1  # the container's nvidia.com/gpu limit
    assert prefill["capture"]["decode"]["sizes"] == []


def test_role_and_container_pick_one(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["resolve", "--from", DGD, "--role", "prefill"], capsys)
    assert rc == 0 and out.count("== ") == 1 and ":80 (dynamo-dgd-v1beta1, prefill" in out
    rc, out, err = run(["resolve", "--from", DGD, "--container", "decod"], capsys)
    assert rc == 2 and "did you mean 'decode'?" in err and err.count("\n") == 1


def test_an_unresolved_variable_the_plan_needs_is_named_with_its_set_hint(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(["resolve", "--from", KIMI, "--container", "decoderConfig.leader"], capsys)
    assert rc == 2
    assert "ome-kimi-k2-pd-rt.yaml:274: --dp-size $(PARALLELISM_SIZE): PARALLELISM_SIZE is not " \
           "set, and the plan depends on --dp-size; --set PARALLELISM_SIZE=VALUE" in err
    rc, out, err = run(["resolve", "--from", KIMI, "--container", "decoderConfig.leader",
                        "--set", "PARALLELISM_SIZE=16", "--engine-version", "sglang==0.5.19",
                        "--ignore-unknown-args", "-o", "json"], capsys)  # a dev image's flags
    assert rc == 0, err
    (item,) = json.loads(out)
    assert item["result"]["facts"]["tp_size"] == 16
    # the model path is the operator's: unknown, said so, and the plan still resolves
    assert "the model is unknown: --model-path $(MODEL_PATH)" in err
    assert "not read: --dist-init-addr $(LWS_LEADER_ADDRESS):5757" in err


def test_the_release_pinned_by_the_image_is_the_one_answered(
        capsys: pytest.CaptureFixture[str]) -> None:
    llmd = str(DATA / "llmd-wide-ep-lws-vllm-deepseek-v4-decode.yaml")
    rc, out, err = run(["resolve", "--from", llmd, "-o", "json"], capsys)
    assert rc == 0, err
    version = json.loads(out)[0]["result"]["engine_version"]
    assert version["version"] == "0.22.1" and "vllm/vllm-openai:v0.22.1" in version["source"]
    rc, out, err = run(["resolve", "--from", str(DATA / "lws-vllm-gpu.yaml")], capsys)
    assert rc == 2 and "vLLM 0.8.5 (image vllm/vllm-openai:v0.8.5" in err
    assert "--engine-version vllm==VERSION" in err


def test_explain_and_diff_take_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["explain", "prefill.backend", "--from", DGD, "--role", "decode"], capsys)
    assert rc == 0 and 'prefill.backend = "disabled"' in out
    rc, out, _ = run(["diff", "--from", DGD, "-o", "json"], capsys)
    assert rc == 1
    result = json.loads(out)
    assert result["a"].endswith(":42") and result["b"].endswith(":80")


def test_companions_without_a_file_and_bad_values_are_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in ((["resolve", "--set", "A=1", "--tp-size", "2"], "give the file"),
                          (["resolve", "--from", DGD, "--role", "prefil"], "did you mean 'prefill'"),
                          (["resolve", "--from", DGD, "--set", "1A=2"], "expected VAR=VALUE"),
                          (["resolve", "--from", "/no/such.yaml"], "file not found")):
        rc, _, err = run(argv, capsys)
        assert rc == 2 and message in err and err.count("\n") == 1, (argv, err)


def test_verify_reads_the_launch_from_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    log = str(DATA.parent / "sglang_decode.log")
    rc, out, _ = run(["verify", log, "--from", str(DATA / "sglang-compose.yaml")], capsys)
    assert rc == 0 and "\nmatches\n" in out
    assert "HF_TOKEN" not in out  # only the engines' own variables reach the resolved line
    rc, _, err = run(["verify", log, "--from", DGD], capsys)  # two launches: pick one
    assert rc == 2 and "verify compares a log with one launch; 2 match" in err
