"""A value that is a shell or Kubernetes variable nobody expanded (a line copied out of a script
or manifest) is named as the line wrote it, with the hint to expand it or read the file
(issue #35: `--tp_size $TP_SIZE` was reported as `--tensor_parallel_size: expected int`)."""

from __future__ import annotations

import pytest

from cgconfig.cli.main import main


@pytest.mark.parametrize(("argv", "flag"), [
    (["trtllm-serve", "m", "--tp_size", "$TP_SIZE"], "--tp_size"),
    (["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "${TP}"], "--tp"),
    (["vllm", "serve", "m", "--max-num-seqs", "$(MAX_SEQS)"], "--max-num-seqs"),
])
def test_an_unexpanded_variable_is_named_with_its_hint(
        argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"cgconfig: error: {flag}: expected")
    assert "--from FILE --set VAR=VALUE" in err


def test_a_plain_bad_number_gets_no_variable_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", "trtllm-serve", "m", "--tp_size", "eight"]) == 2
    err = capsys.readouterr().err
    assert "--tp_size: expected int" in err and "--set" not in err
