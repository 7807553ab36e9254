"""The command line: output formats, explain, schema, version, help, launch lines, --check,
and the import budget of the fast path."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cgconfig import __version__
from cgconfig.cli.main import main
from cgconfig.fields.config import all_config_keys
from cgconfig.fields.flags import ALL_FLAGS
from tests.bounds import HANG_S


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


# --- resolve output formats ---------------------------------------------------------------


def test_resolve_json_has_the_spec_keys(capsys) -> None:
    rc, out, _ = run(["resolve", "-o", "json", "--cuda-graph-backend-decode", "full"], capsys)
    assert rc == 0
    plan = json.loads(out)
    for key in ("schema_version", "config", "capture", "locked", "decisions", "provenance",
                "warnings"):
        assert key in plan
    assert plan["schema_version"] == 1
    assert set(plan["config"]) == {"decode", "prefill"}
    assert {"backend", "max_bs", "bs"} <= set(plan["config"]["decode"])
    assert {"backend", "max_bs", "bs", "max_context_size", "max_seq_len",
            "full_prefill_max_req", "full_prefill_prefix_chunk_tokens"} <= set(
        plan["config"]["prefill"])
    assert {"sizes", "compile_sizes"} <= set(plan["capture"]["decode"])
    assert "sizes" in plan["capture"]["prefill"]
    assert plan["locked"] == ["decode.backend"]
    assert plan["provenance"]["decode.backend"][0] == {"source": "default", "layer": "default",
                                                       "value": "full"}
    assert plan["provenance"]["decode.backend"][-1]["source"] == "--cuda-graph-backend-decode"
    for decision in plan["decisions"]:
        assert {"rule", "kind", "outcome", "changes", "why"} <= set(decision)
        for change in decision["changes"]:
            assert set(change) == {"key", "from", "to"}


def test_resolve_json_long_form_and_equals_form(capsys) -> None:
    _, out1, _ = run(["resolve", "--output", "json"], capsys)
    _, out2, _ = run(["resolve", "--output=json"], capsys)
    assert json.loads(out1) == json.loads(out2)


def test_resolve_json_decision_shape_for_a_rule(capsys) -> None:
    rc, out, _ = run(["resolve", "-o", "json", "--disaggregation-mode", "prefill"], capsys)
    assert rc == 0
    plan = json.loads(out)
    assert plan["config"]["decode"]["backend"] == "disabled"
    assert plan["capture"]["decode"]["sizes"] == []
    rules = [d for d in plan["decisions"] if d["kind"] in ("policy", "constraint")]
    assert rules
    assert rules[0]["outcome"] in ("applied", "skipped-locked", "overrode-lock")
    assert {"key": "decode.backend", "from": "full", "to": "disabled"} in rules[0]["changes"]


def test_resolve_yaml_parses_to_the_same_plan(capsys) -> None:
    import yaml

    rc, out, _ = run(["resolve", "-o", "yaml", "--tp-size", "4"], capsys)
    assert rc == 0
    data = yaml.safe_load(out)
    _, out_json, _ = run(["resolve", "-o", "json", "--tp-size", "4"], capsys)
    assert data == json.loads(out_json)


def test_resolve_table_has_phase_rows(capsys) -> None:
    rc, out, _ = run(["resolve", "--cuda-graph-max-bs-decode", "64"], capsys)
    assert rc == 0
    assert "decode (requests)" in out
    assert "prefill (tokens)" in out
    assert "captured sizes" in out
    assert "Locked by your inputs" in out and "decode.max_bs" in out


def test_resolve_table_shows_disabled_phase(capsys) -> None:
    rc, out, _ = run(["resolve", "--disable-decode-cuda-graph"], capsys)
    assert rc == 0
    decode_rows = [ln for ln in out.splitlines() if "decode (requests)" in ln]
    assert decode_rows and "disabled" in decode_rows[0]


def test_warnings_go_to_stderr(capsys) -> None:
    rc, out, err = run(["resolve", "-o", "json", "--chunked-prefill-size", "-1"], capsys)
    assert rc == 0
    assert json.loads(out)["capture"]["prefill"]["sizes"] == []
    assert any(ln.startswith("cgconfig: warning: ") for ln in err.splitlines())


# --- explain ------------------------------------------------------------------------------


def test_explain_without_key_shows_only_interesting_keys(capsys) -> None:
    rc, out, _ = run(["explain", "--cuda-graph-max-bs-decode", "64"], capsys)
    assert rc == 0
    headlines = [ln for ln in out.splitlines() if not ln.startswith(" ")]
    assert any(ln.startswith("decode.max_bs = 64") for ln in headlines)
    assert "[explicit, locked]" in out
    assert not any(ln.startswith("options.") for ln in headlines)


def test_explain_without_inputs_says_everything_is_default(capsys) -> None:
    rc, out, _ = run(["explain"], capsys)
    assert rc == 0
    assert "default" in out


def test_explain_one_key(capsys) -> None:
    rc, out, _ = run(["explain", "prefill.backend", "--disable-prefill-cuda-graph"], capsys)
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].startswith('prefill.backend = "disabled"')
    assert all(not ln.startswith(("decode.", "options.")) for ln in lines)
    assert any(ln.lstrip().startswith('= "disabled"') and "--disable-prefill-cuda-graph" in ln
               for ln in lines)


def test_explain_all_lists_every_key(capsys) -> None:
    rc, out, _ = run(["explain", "--all"], capsys)
    assert rc == 0
    headlines = [ln.split(" = ")[0] for ln in out.splitlines() if " = " in ln
                 and not ln.startswith(" ")]
    from cgconfig.cli.explain_cmd import ENGINE_KEYS

    # Then the SGLang engine block, in its own order.
    assert headlines == [*all_config_keys(), *ENGINE_KEYS]


def test_explain_json(capsys) -> None:
    rc, out, _ = run(["explain", "-o", "json", "decode.max_bs", "--cuda-graph-max-bs-decode",
                      "48", "--cuda-graph-config", '{"decode":{"max_bs":96}}'], capsys)
    assert rc == 0
    body = json.loads(out)
    assert body["schema_version"] == 1
    assert list(body["settings"]) == ["decode.max_bs"]
    info = body["settings"]["decode.max_bs"]
    assert info["value"] == 96
    assert info["locked"] is True
    assert [e["source"] for e in info["chain"]] == ["default", "--cuda-graph-max-bs-decode",
                                                    "--cuda-graph-config"]


def test_explain_json_all(capsys) -> None:
    rc, out, _ = run(["explain", "-o", "json", "--all"], capsys)
    assert rc == 0
    from cgconfig.cli.explain_cmd import ENGINE_KEYS

    assert list(json.loads(out)["settings"]) == [*all_config_keys(), *ENGINE_KEYS]


def test_explain_shows_skipped_policy(capsys) -> None:
    rc, out, _ = run(["explain", "decode.backend", "--disaggregation-mode", "prefill",
                      "--cuda-graph-backend-decode", "full"], capsys)
    assert rc == 0
    assert out.startswith('decode.backend = "full"')
    assert any(ln.lstrip().startswith("!") for ln in out.splitlines())


# --- schema, version, help ----------------------------------------------------------------


def test_schema_is_a_json_schema_with_decode_and_prefill(capsys) -> None:
    rc, out, _ = run(["schema"], capsys)
    assert rc == 0
    schema = json.loads(out)
    assert schema["type"] == "object"
    assert set(schema["properties"]) == {"decode", "prefill"}
    assert schema.get("additionalProperties") is False
    decode = schema["$defs"]["DecodeConfig"]
    assert set(decode["properties"]) == {"backend", "max_bs", "bs"}
    assert decode["properties"]["backend"]["enum"] == ["full", "breakable", "tc_piecewise", "disabled"]


def test_version(capsys) -> None:
    rc, out, _ = run(["version"], capsys)
    assert rc == 0
    assert out.strip() == f"cgconfig {__version__}"


@pytest.mark.parametrize("command", ["resolve", "explain"])
def test_help_lists_every_flag_of_the_flag_table(command: str, capsys) -> None:
    rc, out, _ = run([command, "--help"], capsys)
    assert rc == 0
    for flag in ALL_FLAGS:
        assert flag.name in out, flag.name
        for alias in flag.aliases:
            assert alias in out, alias


def test_top_level_help_lists_commands(capsys) -> None:
    rc, out, _ = run(["--help"], capsys)
    assert rc == 0
    for command in ("resolve", "explain", "schema", "version", "rules"):
        assert command in out


# --- SGLang launch lines ------------------------------------------------------------------

LAUNCH = ["python", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-70B",
          "--tp", "8", "--port", "30000", "--host", "0.0.0.0", "--mem-fraction-static", "0.85",
          "--trust-remote-code", "--attention-backend", "fa3", "--cuda-graph-max-bs-decode", "256",
          "--chunked-prefill-size", "8192", "--max-running-requests", "512"]


def test_whole_sglang_launch_line_resolves(capsys) -> None:
    rc, out, err = run(["resolve", *LAUNCH, "-o", "json"], capsys)
    assert rc == 0, err
    plan = json.loads(out)
    assert plan["facts"]["tp_size"] == 8
    assert plan["facts"]["attention_backend"] == "fa3"
    assert plan["config"]["decode"]["max_bs"] == 256
    assert plan["config"]["prefill"]["max_bs"] == 8192
    assert {"--port", "--host", "--trust-remote-code"} <= set(plan["ignored_args"])
    # read since issue #10: the engine block shows the given fraction instead of SGLang's own
    assert plan["engine"]["mem_fraction_static"]["source"] == "--mem-fraction-static"
    assert plan["facts"]["model_path"] == "meta-llama/Llama-3.1-70B"


def test_launch_line_alias_is_the_chosen_releases_to_accept(capsys) -> None:
    # SGLang 0.5.19 still reads --cuda-graph-max-bs (deprecated); 0.5.20 on refuse it.
    line = [*LAUNCH[:-6], "--cuda-graph-max-bs", "256"]
    rc, out, err = run(["resolve", *line, "--engine-version", "sglang==0.5.19", "-o", "json"],
                       capsys)
    assert rc == 0 and "'--cuda-graph-max-bs' is deprecated" in err
    assert json.loads(out)["config"]["decode"]["max_bs"] == 256
    rc, _, err = run(["resolve", *line, "--engine-version", "sglang==0.5.23"], capsys)
    assert rc == 2 and "removed in SGLang 0.5.20" in err


def test_launch_line_with_python3_and_sglang_serve(capsys) -> None:
    for head in (["python3", "-m", "sglang.launch_server"], ["sglang", "serve"]):
        rc, out, _ = run(["resolve", *head, "--tp-size", "2", "-o", "json"], capsys)
        assert rc == 0
        assert json.loads(out)["facts"]["tp_size"] == 2


def test_unknown_flag_in_launch_line_is_an_error(capsys) -> None:
    rc, _, err = run(["resolve", *LAUNCH, "--enable-fancy-thing", "3"], capsys)
    assert rc == 2
    assert "unknown flag --enable-fancy-thing" in err
    assert "--ignore-unknown-args" in err


def test_unknown_flag_in_launch_line_ignored_with_ignore_unknown_args(capsys) -> None:
    rc, out, err = run(["resolve", *LAUNCH, "--enable-fancy-thing", "3", "--fancy-switch",
                        "--ignore-unknown-args", "-o", "json"], capsys)
    assert rc == 0, err
    plan = json.loads(out)
    assert {"--enable-fancy-thing", "--fancy-switch"} <= set(plan["ignored_args"])
    assert plan["facts"]["tp_size"] == 8


# --- --check ------------------------------------------------------------------------------


def test_check_any_exits_10_when_a_rule_downgrades(capsys) -> None:
    rc, out, err = run(["resolve", "--check=any", "-o", "json", "--disaggregation-mode", "prefill"],
                       capsys)
    assert rc == 10
    assert json.loads(out)["config"]["decode"]["backend"] == "disabled"
    assert "cgconfig: check: the configuration was changed from the inputs by " \
        "role.prefill-instance-no-decode; to accept it: --allow role.prefill-instance-no-decode" in err


def test_plain_check_lets_an_intended_policy_through(capsys) -> None:
    rc, out, err = run(["resolve", "--check", "-o", "json", "--disaggregation-mode", "prefill"],
                       capsys)
    assert rc == 0 and "check:" not in err
    assert json.loads(out)["config"]["decode"]["backend"] == "disabled"


def test_plain_check_exits_10_when_a_constraint_overrides_a_user_value(capsys) -> None:
    argv = ["resolve", "--check", "-o", "json", "--attention-backend", "torch_native",
            "--cuda-graph-backend-decode", "full"]
    rc, _, err = run(argv, capsys)
    assert rc == 10
    assert "check: attention.torch-native-eager overrode what you set " \
        "(--cuda-graph-backend-decode)" in err
    rc, _, _ = run([*argv, "--allow", "attention.torch-native-eager"], capsys)
    assert rc == 0
    rc, _, _ = run([*argv[:2], "--check=overrides", *argv[2:]], capsys)
    assert rc == 10


def test_check_levels_on_a_vllm_override(capsys) -> None:
    argv = ["resolve", "--dialect", "vllm", "-o", "json", "-cc", '{"cudagraph_mode":"FULL"}',
            "--vllm-attention-backend", "FLASHINFER"]
    rc, _, err = run([*argv, "--check"], capsys)
    assert rc == 10 and "vllm.B2" in err
    rc, _, _ = run([*argv, "--check", "--allow", "vllm.B2"], capsys)
    assert rc == 0


def test_check_exits_0_without_downgrade(capsys) -> None:
    rc, _, _ = run(["resolve", "--check=any", "-o", "json", "--gpu-memory-gib", "80"], capsys)
    assert rc == 0


def test_check_any_exits_0_when_the_policy_was_skipped_for_a_lock(capsys) -> None:
    rc, _, _ = run(["resolve", "--check=any", "-o", "json", "--disaggregation-mode", "prefill",
                    "--cuda-graph-backend-decode", "full"], capsys)
    assert rc == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["--check=anny"], "--check: invalid value 'anny'; did you mean 'any'?; allowed: overrides, any"),
    (["--check", "--allow", "role.prefil-instance-no-decode"],
     "--allow: unknown rule 'role.prefil-instance-no-decode'; did you mean "
     "'role.prefill-instance-no-decode'?"),
    (["--allow"], "--allow: expects a rule id"),
])
def test_check_and_allow_bad_input_is_one_line(argv: list[str], message: str, capsys) -> None:
    rc, _, err = run(["resolve", *argv], capsys)
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1


# --- import budget ------------------------------------------------------------------------

_PROBE = """
import json, sys
from cgconfig.cli.main import main
import io, contextlib
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    rc = main({argv!r})
heavy = [m for m in ("torch", "rich.console", "rich", "yaml", "typer") if m in sys.modules]
print(json.dumps({{"rc": rc, "heavy": heavy}}))
"""


def _probe(argv: list[str] | None, cache_dir: str) -> dict:
    env = dict(os.environ, CGCONFIG_NO_GPU_PROBE="1", CGCONFIG_CACHE_DIR=cache_dir)
    if argv is None:
        code = ("import json, sys, cgconfig.cli.main, cgconfig.api\n"
                "print(json.dumps({'rc': 0, 'heavy': [m for m in ('torch', 'rich.console', "
                "'yaml') if m in sys.modules]}))")
    else:
        code = _PROBE.format(argv=argv)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=HANG_S, check=False, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_cli_and_api_loads_no_heavy_module(tmp_path) -> None:
    result = _probe(None, str(tmp_path))
    assert result["heavy"] == []


def test_resolve_json_loads_no_torch_rich_console_or_yaml(tmp_path) -> None:
    argv = ["resolve", "-o", "json", "--tp-size", "8", "--cuda-graph-max-bs-decode", "64"]
    _probe(argv, str(tmp_path))  # warm the rule-pack cache (reading YAML packs the first time)
    result = _probe(argv, str(tmp_path))
    assert result["rc"] == 0
    for module in ("torch", "rich.console", "yaml"):
        assert module not in result["heavy"]


def test_explain_json_loads_no_torch_rich_console_or_yaml(tmp_path) -> None:
    argv = ["explain", "-o", "json", "decode.backend"]
    _probe(argv, str(tmp_path))
    result = _probe(argv, str(tmp_path))
    assert result["rc"] == 0
    for module in ("torch", "rich.console", "yaml"):
        assert module not in result["heavy"]


def test_diff_version_given_twice_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "--a-version", "0.5.20", "--a-version", "0.5.21", "--tp-size", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--a-version given twice" in err
