"""The CLI behaves like gh/uv/kubectl (issue #14): version and -h, help width, one output
contract (-o table|json|yaml, errors as JSON under -o json), the README's exit-code table, and
the rough edges found by a new user (YAML aliases, locked line, repeated reasons, cut help)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cgconfig import __version__
from cgconfig.cli.main import main
from tests.bounds import HANG_S

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
needs_cli = pytest.mark.skipif(shutil.which("cgconfig") is None, reason="cgconfig not on PATH")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def cli(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """The real console script, piped (not a terminal)."""
    return subprocess.run(["cgconfig", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **env}, timeout=HANG_S)


# --- LICENSE, version, -h -------------------------------------------------------------------


def test_license_is_the_full_apache_2_text() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    for section in ("1. Definitions.", "4. Redistribution.", "9. Accepting Warranty or Additional"
                    " Liability.", "END OF TERMS AND CONDITIONS", "APPENDIX: How to apply"):
        assert section in text
    assert 'license = { text = "Apache-2.0" }' in (ROOT / "pyproject.toml").read_text()


@pytest.mark.parametrize("argv", [["--version"], ["-V"], ["version"]])
def test_version_spellings(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(argv, capsys)
    assert (rc, out, err) == (0, f"cgconfig {__version__}\n", "")


def test_version_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["version", "-o", "json"], capsys)
    assert rc == 0 and json.loads(out) == {"version": __version__}


@pytest.mark.parametrize("argv", [["-h"], ["--help"], ["rules", "-h"], ["rules", "list", "-h"],
                                  ["schema", "-h"], ["diff", "-h"], ["resolve", "-h"],
                                  ["explain", "--help"], []])
def test_help_everywhere_exits_0(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(argv, capsys)
    assert rc == 0, err
    assert "Usage: cgconfig" in out


@needs_cli
def test_top_level_help_lists_every_command_in_full() -> None:
    out = cli(["--help"], COLUMNS="200").stdout
    from cgconfig.cli.app import app

    for command in app.registered_commands:
        first_line = (command.callback.__doc__ or "").strip().splitlines()[0]
        assert first_line in out, f"{command.callback.__name__}: help cut short"
    assert "..." not in out.split("Commands:", 1)[1]


@needs_cli
def test_help_follows_columns() -> None:
    wide = cli(["--help"], COLUMNS="200").stdout.splitlines()
    narrow = cli(["--help"], COLUMNS="60").stdout.splitlines()
    assert max(map(len, narrow)) <= 60
    assert max(map(len, wide)) > 80  # click's 80-column cap is gone
    assert len(narrow) > len(wide)


@needs_cli
def test_piped_prose_is_not_hard_wrapped() -> None:
    out = cli(["resolve", "--attention-backend", "torch_native", "--gpu-memory-gib", "80"],
              COLUMNS="").stdout
    why = [line for line in out.splitlines() if line.strip().startswith("why:")]
    assert why and len(why[0]) > 160
    assert "neither decode nor prefill graphs can be captured" in why[0]


# --- rough edges ------------------------------------------------------------------------------


def test_model_arch_help_is_a_whole_sentence() -> None:
    from cgconfig.fields.flags import ALL_FLAGS

    arch = next(f for f in ALL_FLAGS if f.name == "--model-arch")
    assert arch.help.endswith("DeepseekV3ForCausalLM.")
    for flag in ALL_FLAGS:
        assert flag.help.endswith("."), flag.name
        assert not flag.help.endswith(("e.g.", "i.e.")), flag.name


@pytest.mark.parametrize("argv", [["resolve", "-o", "yaml", "--tp-size", "8"],
                                  ["explain", "--all", "-o", "yaml"]])
def test_yaml_has_no_anchors_or_aliases(argv: list[str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    rc, out, _ = run(argv, capsys)
    assert rc == 0
    assert not re.search(r"[&*]id\d+", out)
    json_argv = [a if a != "yaml" else "json" for a in argv]
    _, out_json, _ = run(json_argv, capsys)
    assert yaml.safe_load(out) == json.loads(out_json)


def test_locked_line_names_each_source_once(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["resolve", "--deployment", "examples/deployment.yaml",
                      "--cuda-graph-config", "examples/graph_config.yaml",
                      "--cuda-graph-max-bs-prefill", "4096"], capsys)
    assert rc == 0
    line = next(line for line in out.splitlines() if line.startswith("Locked by your inputs"))
    assert line == ("Locked by your inputs: decode.backend, decode.max_bs, prefill.backend, "
                    "prefill.max_bs ← --cuda-graph-config examples/graph_config.yaml")


def test_locked_line_groups_several_sources(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["resolve", "--cuda-graph-backend-decode", "full", "--cuda-graph-max-bs-decode",
                     "64", "--cuda-graph-config", '{"prefill":{"max_bs":1024}}'], capsys)
    line = next(line for line in out.splitlines() if line.startswith("Locked by your inputs"))
    assert line == ("Locked by your inputs: decode.backend ← --cuda-graph-backend-decode; "
                    "decode.max_bs ← --cuda-graph-max-bs-decode; prefill.max_bs ← "
                    "--cuda-graph-config")


def test_torch_native_reason_is_printed_once(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["resolve", "--attention-backend", "torch_native",
                      "--cuda-graph-backend-decode", "full", "--gpu-memory-gib", "80"], capsys)
    assert rc == 0
    assert out.count("plain PyTorch attention that SGLang only runs eagerly") == 1
    _, out_json, _ = run(["resolve", "--attention-backend", "torch_native",
                          "--cuda-graph-backend-decode", "full", "--gpu-memory-gib", "80",
                          "-o", "json"], capsys)
    assert json.loads(out_json)["warnings"]  # the machine form keeps the warning


@pytest.mark.parametrize("flag", [["--emit", "sglang"], ["--check"]])
def test_explain_rejects_resolve_only_flags(flag: list[str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(["explain", "decode.backend", *flag], capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"cgconfig: error: explain: {flag[0]} is a resolve flag")


# --- rules list / show / validate -----------------------------------------------------------


def test_rules_list_json_and_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    from cgconfig.rules.loader import load_rule_set

    rc, out, _ = run(["rules", "list", "-o", "json"], capsys)
    rows = json.loads(out)["rules"]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    stated = re.search(r"shows all (\d+) shipped rules", readme)
    assert stated, "README.md states how many rules ship"
    shipped = len(load_rule_set().rules)
    assert rc == 0 and len(rows) == shipped
    assert shipped == int(stated.group(1)), "README.md's rule count is stale"
    assert set(rows[0]) == {"id", "kind", "pack", "title"}
    _, out_yaml, _ = run(["rules", "list", "-o", "yaml"], capsys)
    assert yaml.safe_load(out_yaml)["rules"] == rows


def test_rules_show_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["rules", "show", "attention.torch-native-eager", "-o", "json"], capsys)
    rule = json.loads(out)
    assert rc == 0
    assert rule["id"] == "attention.torch-native-eager" and rule["pack"] == "attention"
    # the pack as written: {engine.label} is the release a line is answered for
    assert rule["source"].startswith("{engine.label} python/sglang/srt/")


def test_rules_errors_match_resolve_style(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(["rules", "show", "role.prefill-instance-no-decod", "-o", "json"], capsys)
    assert rc == 2
    assert err == ("cgconfig: error: rule id: unknown rule 'role.prefill-instance-no-decod'; "
                   "did you mean 'role.prefill-instance-no-decode'?\n")
    assert json.loads(out)["error"]["suggestion"] == "role.prefill-instance-no-decode"


@pytest.mark.parametrize("argv,message", [
    (["rules", "list", "--bogus"], "cgconfig rules list: No such option: --bogus"),
    (["rules", "show"], "cgconfig rules show: Missing argument"),
    (["resolv"], "cgconfig: No such command 'resolv'; did you mean 'resolve'?"),
    (["rules", "list", "-o", "jsn"], "-o: unknown output format 'jsn'; did you mean 'json'?"),
])
def test_usage_errors_are_one_line(argv: list[str], message: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(argv, capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"cgconfig: error: {message}")


def _pack(tmp_path: Path, expect: str) -> Path:
    path = tmp_path / "pack.yaml"
    path.write_text(
        "pack: site\ntitle: t\nrules:\n"
        "  - id: site.cap\n    title: cap decode graphs\n    kind: policy\n"
        "    when: {gt: {path: config.decode.max_bs, value: 64}}\n"
        "    then:\n      - clamp: {key: decode.max_bs, max: 64}\n"
        "    reason: r\n    source: s\n    examples:\n"
        f"      - {{args: [--gpu-memory-gib, '80'], fires: true, expect: {{decode.max_bs: {expect}}}}}\n"
        "      - {args: [--cuda-graph-max-bs-decode, '32'], fires: false}\n", encoding="utf-8")
    return path


def test_rules_validate_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["rules", "validate", str(_pack(tmp_path, "64"))], capsys)
    assert rc == 0 and "1 rules valid, 2 examples pass" in out
    rc, out, err = run(["rules", "validate", str(_pack(tmp_path, "63"))], capsys)
    assert rc == 2 and "example failed: site.cap example 0: expected decode.max_bs=63" in err
    rc, out, _ = run(["rules", "validate", str(_pack(tmp_path, "63")), "-o", "json"], capsys)
    assert rc == 2 and json.loads(out)["valid"] is False
    rc, _, err = run(["rules", "validate", str(tmp_path / "missing.yaml")], capsys)
    assert rc == 2 and "file not found" in err


# --- one output contract, and the README's exit-code table -----------------------------------

#: (command, exit code) → an invocation that must exit with it. Every command of the README's
#: table and every code it lists for that command appears here.
CASES: dict[tuple[str, int], list[str]] = {
    ("resolve", 0): ["resolve", "--tp-size", "8"],
    ("resolve", 2): ["resolve", "--tp-sze", "8"],
    ("resolve", 3): ["resolve", "--strict", "--attention-backend", "torch_native",
                     "--cuda-graph-backend-decode", "full"],
    ("resolve", 10): ["resolve", "--check", "--attention-backend", "torch_native",
                      "--cuda-graph-backend-decode", "full"],
    ("explain", 0): ["explain", "decode.backend"],
    ("explain", 2): ["explain", "decode.bakend"],
    ("explain", 3): ["explain", "--strict", "--attention-backend", "torch_native",
                     "--cuda-graph-backend-decode", "full"],
    ("diff", 0): ["diff", "--a", "--tp-size 8", "--b", "--tp 8"],
    ("diff", 1): ["diff", "--a", "--tp-size 8", "--b", "--tp-size 8 --device hip"],
    ("diff", 2): ["diff", "--a", "--tp-size 8"],
    ("migrate", 0): ["migrate", "--engine-version", "sglang==0.5.19", "--cuda-graph-max-bs", "64",
                     "--to", "sglang==0.5.23"],
    # SGLang 0.5.19 refuses unified memory with a prefill graph (06-sglang-releases.yaml)
    ("migrate", 1): ["migrate", "--engine-version", "sglang==0.5.23", "--enable-unified-memory",
                     "--cuda-graph-backend-prefill", "full", "--to", "sglang==0.5.19"],
    ("migrate", 2): ["migrate", "--tp-size", "8", "--to", "sglang==0.4.0"],
    ("tune", 0): ["tune", "--histogram", str(ROOT / "benchmarks/workloads/poisson.json"),
                  "--gpu-memory-gib", "141", "--max-graphs", "8"],
    ("tune", 2): ["tune", "--histogram", str(ROOT / "no-such-histogram.json")],
    ("histogram", 0): ["histogram", "--sglang-log", str(ROOT / "tests/data/sglang_decode.log")],
    ("histogram", 2): ["histogram", "--sglang-log", str(ROOT / "no-such.log")],
    # real logs: tests/verify/log_set.py names their threads
    ("verify", 0): ["verify", str(ROOT / "tests/data/verify_logs/trtllm_jeansblog.log"),
                    "trtllm-serve", "openai/gpt-oss-120b", "--max_batch_size", "64",
                    "--extra_llm_api_options",
                    str(ROOT / "tests/data/verify_logs/trtllm_jeansblog_extra.yml")],
    ("verify", 1): ["verify", str(ROOT / "tests/data/verify_logs/vllm_0.11.0_qwen3vl_tp4.log"),
                    "--engine-version", "vllm==0.20.2"],
    ("verify", 3): ["verify", str(ROOT / "tests/data/verify_logs/vllm_0.11.0_qwen3vl_tp4.log")],
    ("verify", 4): ["verify", str(ROOT / "tests/data/verify_logs/vllm_45150_partial.log")],
    ("verify", 2): ["verify", str(ROOT / "README.md")],
    ("rules", 0): ["rules", "list"],
    ("rules", 2): ["rules", "show", "no.such-rule"],
    ("schema", 0): ["schema", "plan"],
    ("schema", 2): ["schema", "plon"],
    ("completion", 0): ["completion", "fish"],
    ("completion", 2): ["completion", "tcsh"],
    ("check", 0): ["check", str(ROOT / "examples/check/trtllm-conc1024.yaml")],
    ("check", 1): ["check", "--engine-version", "sglang==0.5.23",
                   str(ROOT / "examples/check/serve.sh")],
    ("check", 2): ["check", str(ROOT / "no-such-folder")],
    ("version", 0): ["version"],
    ("version", 2): ["version", "-o", "xml"],
}


def _readme_exit_table() -> dict[int, set[str]]:
    section = README.split("| exit code | meaning | commands |", 1)[1].split("\n\n", 1)[0]
    table: dict[int, set[str]] = {}
    for row in section.strip().splitlines()[1:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        commands = set(re.findall(r"`(\w+)`", cells[2])) if cells[2] != "all" else {"all"}
        table[int(cells[0])] = commands
    return table


def test_readme_exit_table_is_covered_by_cases() -> None:
    table = _readme_exit_table()
    assert set(table) == {0, 1, 2, 3, 4, 10}
    commands = {command for command, _ in CASES}
    for code, listed in table.items():
        for command in (commands if listed == {"all"} else listed):
            assert (command, code) in CASES, f"no test for `{command}` exiting {code}"
    for command, code in CASES:
        assert table[code] == {"all"} or command in table[code], (command, code)
    documented = set(re.findall(r"^\| `cgconfig (\w+)", README, re.MULTILINE))
    assert documented == commands


@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: f"{c[0]}-{c[1]}")
def test_every_command_exits_as_the_readme_says(case: tuple[str, int],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(CASES[case], capsys)
    assert rc == case[1], err
    if rc == 2:
        assert err.startswith("cgconfig: error: ") and err.count("\n") == 1


ERROR_CASES = [
    ["resolve", "--tp-sze", "8"], ["explain", "decode.bakend"], ["diff", "--a", "--tp-size 8"],
    ["rules", "list", "--rules", "/no/such.yaml"], ["rules", "show", "nope"],
    ["rules", "validate", "/no/such.yaml"], ["schema", "plon"], ["rules", "list", "--bogus"],
]


@pytest.mark.parametrize("argv", ERROR_CASES, ids=lambda a: " ".join(a[:2]))
def test_errors_are_json_under_o_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run([*argv, "-o", "json"], capsys)
    assert rc == 2
    body = json.loads(out)["error"]
    assert body["code"] == "input" and body["message"] in err


def test_readme_documents_the_environment_variables() -> None:
    read = set()
    for folder in ("cgconfig", "rules", "cli", "runtime"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            read |= set(re.findall(r"environ(?:\.get)?\(\s*\"(CGCONFIG_\w+)\"", text))
            read |= set(re.findall(r"DISABLE_ENV = \"(CGCONFIG_\w+)\"", text))
    assert {"CGCONFIG_NO_GPU_PROBE", "CGCONFIG_CACHE_DIR", "CGCONFIG_NO_CACHE"} <= read
    section = README.split("## Environment variables", 1)[1]
    for name in read:
        assert f"`{name}`" in section, name


def test_console_script_runs_as_a_module() -> None:
    out = subprocess.run([sys.executable, "-m", "cgconfig.cli", "--version"], capture_output=True,
                         text=True, cwd=ROOT, timeout=HANG_S)
    assert out.stdout == f"cgconfig {__version__}\n"
