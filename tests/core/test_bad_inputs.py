"""Bad input: exit code 2, one ``cgconfig: error:`` line on stderr, never a traceback.

Each case names what was wrong, where (flag, JSON pointer or ``file:line``) and, where it
applies, what is allowed and a did-you-mean.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cgconfig.cli.main import main
from tests.bounds import HANG_S

FILES = {
    "bad.yaml": "decode:\n  max_bs: 8\n  bs: [1, 2\n",
    "unknown-key.yaml": "decode:\n  max_bs: 8\nprefill:\n  backnd: full\n",
    "bad-value.yaml": "decode:\n  backend: full\n  max_bs: lots\n",
    "list.json": "[1, 2, 3]\n",
    "deploy-typo.yaml": "tp_size: 2\ntp_sise: 4\n",
    "deploy-bad-value.yaml": "tp_size: 2\ndevice: cuda2\n",
    "deploy-list.yaml": "- tp_size\n",
    "bad.json": '{"decode": {"max_bs": 8,}}\n',
}

# (id, argv after the program name, substrings the error line must contain)
CASES: list[tuple[str, list[str], list[str]]] = [
    # unknown flags
    ("unknown-flag-dym", ["resolve", "--cuda-graph-max-bz", "3"],
     ["unknown flag --cuda-graph-max-bz", "did you mean '--cuda-graph-max-bs'",
      "--ignore-unknown-args"]),
    ("unknown-flag-tp", ["resolve", "--tp-sise", "2"],
     ["unknown flag --tp-sise", "did you mean '--tp-size'"]),
    ("unknown-flag-explain", ["explain", "--disable-cuda-graf"],
     ["unknown flag --disable-cuda-graf", "did you mean '--disable-cuda-graph'"]),
    # unknown phase / key in JSON
    ("json-unknown-phase", ["resolve", "--cuda-graph-config", '{"decod":{}}'],
     ["--cuda-graph-config at /decod", "unknown phase 'decod'", "did you mean 'decode'",
      "allowed: decode, prefill"]),
    ("json-options-phase", ["resolve", "--cuda-graph-config", '{"options":{}}'],
     ["unknown phase 'options'", "allowed: decode, prefill"]),
    ("json-unknown-key", ["resolve", "--cuda-graph-config", '{"decode":{"max_b":3}}'],
     ["--cuda-graph-config at /decode/max_b", "unknown key 'max_b'", "did you mean 'max_bs'",
      "allowed: backend, max_bs, bs"]),
    ("json-prefill-key-on-decode",
     ["resolve", "--cuda-graph-config", '{"decode":{"max_seq_len":3}}'],
     ["/decode/max_seq_len", "unknown key 'max_seq_len'", "allowed: backend, max_bs, bs"]),
    ("json-unknown-prefill-key",
     ["resolve", "--cuda-graph-config", '{"prefill":{"max_context":3}}'],
     ["/prefill/max_context", "unknown key", "did you mean 'max_context_size'", "allowed:"]),
    # value types
    ("json-max-bs-string", ["resolve", "--cuda-graph-config", '{"decode":{"max_bs":"abc"}}'],
     ["/decode/max_bs", "valid integer", "'abc'"]),
    ("json-max-bs-negative", ["resolve", "--cuda-graph-config", '{"decode":{"max_bs":-1}}'],
     ["/decode/max_bs", "greater than 0", "-1"]),
    ("json-max-bs-zero", ["resolve", "--cuda-graph-config", '{"decode":{"max_bs":0}}'],
     ["/decode/max_bs", "greater than 0"]),
    ("json-max-bs-float", ["resolve", "--cuda-graph-config", '{"decode":{"max_bs":1.5}}'],
     ["/decode/max_bs", "valid integer", "1.5"]),
    ("json-max-bs-float-integral",
     ["resolve", "--cuda-graph-config", '{"prefill":{"max_bs":1e3}}'],
     ["/prefill/max_bs", "valid integer"]),
    ("json-max-bs-bool", ["resolve", "--cuda-graph-config", '{"decode":{"max_bs":true}}'],
     ["/decode/max_bs", "valid integer", "True"]),
    ("json-bs-empty", ["resolve", "--cuda-graph-config", '{"decode":{"bs":[]}}'],
     ["/decode/bs", "at least 1 item", "[]"]),
    ("json-prefill-bs-empty", ["resolve", "--cuda-graph-config", '{"prefill":{"bs":[]}}'],
     ["/prefill/bs", "at least 1 item"]),
    ("json-bs-not-list", ["resolve", "--cuda-graph-config", '{"decode":{"bs":4}}'],
     ["/decode/bs", "valid list", "4"]),
    ("json-bs-zero-item", ["resolve", "--cuda-graph-config", '{"decode":{"bs":[1,0]}}'],
     ["/decode/bs", "greater than 0"]),
    ("json-bs-string-item", ["resolve", "--cuda-graph-config", '{"decode":{"bs":[1,"2"]}}'],
     ["/decode/bs", "valid integer", "'2'"]),
    ("json-bs-bool-item", ["resolve", "--cuda-graph-config", '{"prefill":{"bs":[true]}}'],
     ["/prefill/bs", "valid integer"]),
    ("json-context-human-string",
     ["resolve", "--cuda-graph-config", '{"prefill":{"max_context_size":"200k"}}'],
     ["/prefill/max_context_size", "valid integer", "'200k'"]),
    # backends
    ("json-tc-piecewise",
     ["resolve", "--cuda-graph-config", '{"prefill":{"backend":"tc_piecewise"}}'],
     ["/prefill/backend", "SGLang 0.5.23 refuses it: tc_piecewise was removed in SGLang 0.5.22",
      "allowed: full, breakable, disabled"]),
    ("flag-tc-piecewise", ["resolve", "--cuda-graph-backend-prefill", "tc_piecewise"],
     ["--cuda-graph-backend-prefill", "tc_piecewise was removed in SGLang 0.5.22",
      "select breakable, full, or disabled"]),
    ("flag-tc-piecewise-decode", ["resolve", "--cuda-graph-backend-decode=tc_piecewise"],
     ["--cuda-graph-backend-decode", "tc_piecewise was removed in SGLang 0.5.22"]),
    ("flag-tc-piecewise-0.5.22", ["resolve", "--engine-version", "sglang==0.5.22",
                                  "--cuda-graph-backend-prefill", "tc_piecewise"],
     ["SGLang 0.5.22 refuses it: tc_piecewise was removed in SGLang 0.5.22"]),
    ("json-piecewise", ["resolve", "--cuda-graph-config", '{"prefill":{"backend":"piecewise"}}'],
     ["/prefill/backend", "piecewise (tc_piecewise) was removed"]),
    ("json-backend-typo", ["resolve", "--cuda-graph-config", '{"decode":{"backend":"fulll"}}'],
     ["/decode/backend", "'fulll'", "did you mean 'full'", "allowed: full, breakable, disabled"]),
    ("json-backend-number", ["resolve", "--cuda-graph-config", '{"decode":{"backend":1}}'],
     ["/decode/backend", "allowed: full, breakable, disabled"]),
    ("json-tc-compiler-key",
     ["resolve", "--cuda-graph-config", '{"prefill":{"tc_compiler":"eager"}}'],
     ["/prefill/tc_compiler", "unknown key 'tc_compiler'", "tc_compiler was removed"]),
    # removed flags
    ("removed-enforce-piecewise", ["resolve", "--enforce-piecewise-cuda-graph",
      "--engine-version", "sglang==0.5.23"],
     ["--enforce-piecewise-cuda-graph", "was removed in SGLang 0.5.20",
      "--cuda-graph-backend-prefill breakable (tc_piecewise was removed in SGLang 0.5.22)"]),
    # SGLang 0.5.13's parser still has it (a no-op DeprecatedAction): a line with no release
    # named is answered for 0.5.13 (tests/engines/test_version_flags.py).
    ("removed-enable-piecewise", ["resolve", "--enable-piecewise-cuda-graph",
      "--engine-version", "sglang==0.5.14"],
     ["--enable-piecewise-cuda-graph", "was removed", "--cuda-graph-backend-prefill breakable"]),
    ("removed-tc-compiler-flag", ["resolve", "--cuda-graph-tc-compiler", "eager",
      "--engine-version", "sglang==0.5.23"],
     ["--cuda-graph-tc-compiler", "was removed", "tc_compiler"]),
    ("removed-piecewise-compiler-flag", ["resolve", "--piecewise-cuda-graph-compiler", "eager",
      "--engine-version", "sglang==0.5.23"],
     ["--piecewise-cuda-graph-compiler", "was removed"]),
    # JSON document shape
    ("json-syntax", ["resolve", "--cuda-graph-config", "{bad"],
     ["--cuda-graph-config", "invalid JSON", "line 1 column 2"]),
    ("json-trailing-comma", ["resolve", "--cuda-graph-config", '{"decode":{"max_bs":8,}}'],
     ["--cuda-graph-config", "invalid JSON"]),
    ("json-top-level-array", ["resolve", "--cuda-graph-config", "[1]"],
     ["--cuda-graph-config", "must be a JSON object, got list"]),
    ("json-top-level-null", ["resolve", "--cuda-graph-config", "null"],
     ["--cuda-graph-config", "must be a JSON object"]),
    ("json-phase-not-object", ["resolve", "--cuda-graph-config", '{"decode":3}'],
     ["--cuda-graph-config at /decode", "must be a JSON object, got int"]),
    ("json-phase-list", ["resolve", "--cuda-graph-config", '{"prefill":["full"]}'],
     ["/prefill", "must be a JSON object, got list"]),
    ("config-missing-value", ["resolve", "--cuda-graph-config"],
     ["--cuda-graph-config", "expects a value"]),
    # files
    ("missing-at-file", ["resolve", "--cuda-graph-config", "@{tmp}/nope.json"],
     ["--cuda-graph-config", "file not found", "nope.json"]),
    ("missing-yaml-path", ["resolve", "--cuda-graph-config", "{tmp}/nope.yaml"],
     ["file not found", "nope.yaml"]),
    ("yaml-syntax", ["resolve", "--cuda-graph-config", "{tmp}/bad.yaml"],
     ["bad.yaml:", "invalid YAML"]),
    ("yaml-unknown-key", ["resolve", "--cuda-graph-config", "{tmp}/unknown-key.yaml"],
     ["unknown-key.yaml:4", "/prefill/backnd", "unknown key 'backnd'",
      "did you mean 'backend'"]),
    ("yaml-unknown-key-at", ["resolve", "--cuda-graph-config", "@{tmp}/unknown-key.yaml"],
     ["unknown-key.yaml:4", "unknown key 'backnd'"]),
    ("yaml-bad-value", ["resolve", "--cuda-graph-config", "{tmp}/bad-value.yaml"],
     ["bad-value.yaml:3", "/decode/max_bs", "valid integer", "'lots'"]),
    ("json-file-array", ["resolve", "--cuda-graph-config", "{tmp}/list.json"],
     ["list.json", "must be a JSON object, got list"]),
    ("json-file-syntax", ["resolve", "--cuda-graph-config", "{tmp}/bad.json"],
     ["bad.json", "invalid JSON"]),
    ("deployment-unknown-key", ["resolve", "--deployment", "{tmp}/deploy-typo.yaml"],
     ["deploy-typo.yaml:2", "unknown deployment fact 'tp_sise'", "did you mean 'tp_size'"]),
    ("deployment-bad-value", ["resolve", "--deployment", "{tmp}/deploy-bad-value.yaml"],
     ["deploy-bad-value.yaml", "cuda2", "allowed: cuda, hip, npu, xpu, cpu, mps"]),
    ("deployment-not-mapping", ["resolve", "--deployment", "{tmp}/deploy-list.yaml"],
     ["deploy-list.yaml", "must be a mapping"]),
    ("deployment-missing", ["resolve", "--deployment", "{tmp}/none.yaml"],
     ["--deployment", "file not found"]),
    # bad choices
    ("device-choice", ["resolve", "--device", "cuda2"],
     ["--device", "invalid value 'cuda2'", "did you mean 'cuda'",
      "allowed: cuda, hip, npu, xpu, cpu, mps"]),
    ("attention-backend-choice", ["resolve", "--attention-backend", "flashinfr"],
     ["--attention-backend", "'flashinfr'", "did you mean 'flashinfer'", "allowed:"]),
    ("prefill-attention-backend-choice", ["resolve", "--prefill-attention-backend", "fa5"],
     ["--prefill-attention-backend", "'fa5'", "allowed:"]),
    ("disagg-choice", ["resolve", "--disaggregation-mode", "prefil"],
     ["--disaggregation-mode", "'prefil'", "did you mean 'prefill'",
      "allowed: null, prefill, decode"]),
    ("backend-choice", ["resolve", "--cuda-graph-backend-decode", "ful"],
     ["--cuda-graph-backend-decode", "'ful'", "did you mean 'full'",
      "allowed: full, breakable, disabled"]),
    ("backend-choice-inline", ["resolve", "--cuda-graph-backend-prefill=brekable"],
     ["--cuda-graph-backend-prefill", "did you mean 'breakable'"]),
    ("moe-a2a-choice", ["resolve", "--moe-a2a-backend", "deep"],
     ["--moe-a2a-backend", "did you mean 'deepep'", "allowed:"]),
    ("deepep-mode-choice", ["resolve", "--deepep-mode", "lowlatency"],
     ["--deepep-mode", "did you mean 'low_latency'"]),
    ("speculative-choice", ["resolve", "--speculative-algorithm", "MEDUSA"],
     ["--speculative-algorithm", "'MEDUSA'", "allowed: EAGLE"]),
    ("output-choice", ["resolve", "-o", "xml"],
     ["-o", "invalid value 'xml'", "allowed: table, json, yaml"]),
    # missing values, numbers
    ("tp-size-missing-at-end", ["resolve", "--tp-size"], ["--tp-size", "expects a value"]),
    ("tp-size-missing-before-flag", ["resolve", "--tp-size", "--enable-lora"],
     ["--tp-size", "expects a value"]),
    ("bs-list-missing", ["resolve", "--cuda-graph-bs-decode"],
     ["--cuda-graph-bs-decode", "expects one or more values"]),
    ("tp-size-zero", ["resolve", "--tp-size", "0"],
     ["--tp-size", "expected a positive integer, got 0"]),
    ("tp-size-abc", ["resolve", "--tp-size", "abc"],
     ["--tp-size", "expected an integer, got 'abc'"]),
    ("tp-alias-abc", ["resolve", "--tp", "x"], ["--tp", "expected an integer"]),
    ("dp-size-float", ["resolve", "--dp-size", "1.5"], ["--dp-size", "expected an integer"]),
    ("max-bs-negative", ["resolve", "--cuda-graph-max-bs-decode", "-5"],
     ["--cuda-graph-max-bs-decode", "plans the decode sizes [-5] and stops at start-up"]),
    ("alias-max-bs-zero", ["resolve", "--engine-version", "0.5.19", "--cuda-graph-max-bs", "0"],
     ["--cuda-graph-max-bs", "plans the decode sizes [0] and stops at start-up"]),
    ("bs-list-zero", ["resolve", "--cuda-graph-bs-decode", "1", "0"],
     ["--cuda-graph-bs-decode", "plans the decode sizes [1, 0] and stops at start-up"]),
    ("bs-list-word", ["resolve", "--cuda-graph-bs-prefill", "16", "x"],
     ["--cuda-graph-bs-prefill", "expected an integer, got 'x'"]),
    ("torch-compile-max-bs-zero", ["resolve", "--torch-compile-max-bs", "0"],
     ["--torch-compile-max-bs", "expected a positive integer"]),
    ("mrr-zero", ["resolve", "--max-running-requests", "0"],
     ["--max-running-requests", "expected a positive integer"]),
    ("chunked-abc", ["resolve", "--chunked-prefill-size", "abc"],
     ["--chunked-prefill-size", "expected an integer"]),
    ("gpu-memory-negative", ["resolve", "--gpu-memory-gib", "-1"],
     ["--gpu-memory-gib", "expected a non-negative number", "'-1'"]),
    ("gpu-memory-word", ["resolve", "--gpu-memory-gib", "lots"],
     ["--gpu-memory-gib", "expected a number"]),
    ("max-context-2x", ["resolve", "--cuda-graph-prefill-max-context", "2x"],
     ["--cuda-graph-prefill-max-context", "'2x'", "200k"]),
    ("max-context-zero", ["resolve", "--cuda-graph-prefill-max-context", "0"],
     ["--cuda-graph-prefill-max-context", "positive integer"]),
    # switches, positionals
    ("switch-with-value", ["resolve", "--enable-lora=yes"],
     ["--enable-lora", "switch", "takes no value", "'yes'"]),
    ("legacy-switch-with-value", ["resolve", "--disable-cuda-graph=1"],
     ["--disable-cuda-graph", "takes no value"]),
    ("positional-junk", ["resolve", "junk"], ["unexpected argument 'junk'"]),
    ("positional-after-flag", ["resolve", "--tp-size", "2", "extra"],
     ["unexpected argument 'extra'"]),
    # explain
    ("explain-unknown-key", ["explain", "decode.max_b"],
     ["explain", "unknown key 'decode.max_b'", "did you mean 'decode.max_bs'"]),
    ("explain-bad-fact", ["explain", "--device", "gpu"], ["--device", "invalid value 'gpu'"]),
    # other commands
    ("schema-unknown", ["schema", "confg"], ["unknown schema 'confg'", "allowed: config"]),
    ("rules-show-unknown", ["rules", "show", "role.prefill-instance-no-decod"],
     ["unknown rule"]),
]

assert len(CASES) >= 45


@pytest.fixture
def tmp_files(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _expand(argv: list[str], tmp: Path) -> list[str]:
    return [a.replace("{tmp}", str(tmp)) for a in argv]


@pytest.mark.parametrize(("argv", "needles"), [(c[1], c[2]) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_exits_2_with_one_clear_line(argv: list[str], needles: list[str],
                                               tmp_files: Path, capsys) -> None:
    rc = main(_expand(argv, tmp_files))
    captured = capsys.readouterr()
    assert rc == 2
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    line = lines[0]
    assert line.startswith("cgconfig: error: ")
    for needle in needles:
        assert needle.replace("{tmp}", str(tmp_files)) in line


@pytest.mark.parametrize("text", ["2.5", "1.0005k"])
def test_fractional_max_context_is_rejected(text: str, capsys) -> None:
    rc = main(["resolve", "--cuda-graph-prefill-max-context", text])
    assert rc == 2
    assert "--cuda-graph-prefill-max-context" in capsys.readouterr().err


def test_bad_input_error_names_where_before_what(capsys) -> None:
    main(["resolve", "--cuda-graph-config", '{"decode":{"max_bs":"abc"}}'])
    line = capsys.readouterr().err.strip()
    assert line.startswith("cgconfig: error: --cuda-graph-config at /decode/max_bs: ")


@pytest.mark.parametrize(("argv", "what"), [
    (["resolve", "-o", "json", "--cuda-graph-config", '{"decode":{"max_b":3}}'],
     "unknown key 'max_b'"),
    (["resolve", "--device", "cuda2", "--output", "json"], "invalid value 'cuda2'"),
    (["resolve", "--output=json", "--tp-size", "0"], "expected a positive integer, got 0"),
    (["explain", "-o", "json", "decode.max_b"], "unknown key 'decode.max_b'"),
])
def test_json_output_errors_are_a_json_object_on_stdout(argv: list[str], what: str,
                                                        capsys) -> None:
    rc = main(argv)
    captured = capsys.readouterr()
    assert rc == 2
    body = json.loads(captured.out)
    assert set(body) == {"error"}
    assert body["error"]["code"] == "input"
    assert body["error"]["what"] == what
    assert what in body["error"]["message"]
    assert captured.err.startswith("cgconfig: error: ")
    assert len(captured.err.splitlines()) == 1


def test_short_output_equals_form_gives_json_error(capsys) -> None:
    rc = main(["resolve", "-o=json", "--tp-size", "0"])
    assert rc == 2
    assert json.loads(capsys.readouterr().out)["error"]["where"] == "--tp-size"


def test_short_output_equals_form_selects_json_for_a_plan(capsys) -> None:
    assert main(["resolve", "-o=json"]) == 0
    assert json.loads(capsys.readouterr().out)["schema_version"] == 1


def test_json_output_error_keeps_parts_apart(capsys) -> None:
    main(["resolve", "-o", "json", "--cuda-graph-backend-decode", "ful"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["where"] == "--cuda-graph-backend-decode"
    assert error["suggestion"] == "full"
    assert error["allowed"] == "full, breakable, disabled"


def test_table_output_error_prints_nothing_on_stdout(capsys) -> None:
    rc = main(["resolve", "--tp-size", "0"])
    captured = capsys.readouterr()
    assert rc == 2
    assert captured.out == ""


def test_unknown_flag_is_accepted_with_ignore_unknown_args(capsys) -> None:
    rc = main(["resolve", "--cuda-graph-max-bz", "3", "--ignore-unknown-args", "-o", "json"])
    captured = capsys.readouterr()
    assert rc == 0
    assert "--cuda-graph-max-bz" in json.loads(captured.out)["ignored_args"]


# --- the installed console script ---------------------------------------------------------


def _console_script() -> list[str]:
    exe = shutil.which("cgconfig", path=os.path.dirname(sys.executable))
    return [exe] if exe else [sys.executable, "-m", "cgconfig.cli.main"]


@pytest.mark.parametrize(("args", "needle"), [
    (["resolve", "--cuda-graph-config", '{"decode":{"max_bs":"abc"}}'], "/decode/max_bs"),
    (["resolve", "--cuda-graph-backend-prefill", "tc_piecewise"], "tc_piecewise was removed"),
    (["explain", "--cuda-graph-max-bz", "3"], "did you mean '--cuda-graph-max-bs'"),
])
def test_console_script_bad_input_no_traceback(args: list[str], needle: str) -> None:
    done = subprocess.run([*_console_script(), *args], capture_output=True, text=True,
                          timeout=HANG_S, check=False, env=dict(os.environ))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("cgconfig: error: ")
    assert len(done.stderr.splitlines()) == 1
    assert needle in done.stderr
    assert done.stdout == ""


def test_console_script_json_error_on_stdout() -> None:
    done = subprocess.run([*_console_script(), "resolve", "-o", "json", "--tp-size", "abc"],
                          capture_output=True, text=True, timeout=HANG_S, check=False)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout)["error"]["where"] == "--tp-size"
