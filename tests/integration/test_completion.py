"""Shell completion answers from the flag table, the keys and the rule ids."""

from __future__ import annotations

import pytest

from cgconfig.cli.complete import candidates, rule_ids, script
from cgconfig.cli.main import main


def test_commands() -> None:
    assert candidates(["cgconfig", "ex"], 1) == ["explain"]


def test_flags_by_prefix() -> None:
    got = candidates(["cgconfig", "resolve", "--cuda-graph-backend"], 2)
    assert got == ["--cuda-graph-backend-decode", "--cuda-graph-backend-prefill"]


def test_backend_values() -> None:
    assert candidates(["cgconfig", "resolve", "--cuda-graph-backend-decode", ""], 3) == [
        "full", "breakable", "tc_piecewise", "disabled"]


def test_attention_backends() -> None:
    assert "flashinfer" in candidates(["cgconfig", "resolve", "--attention-backend", "fl"], 3)


def test_phase_keys_for_explain() -> None:
    assert candidates(["cgconfig", "explain", "prefill.max_"], 2) == [
        "prefill.max_bs", "prefill.max_context_size", "prefill.max_seq_len"]


def test_rule_ids() -> None:
    ids = rule_ids()
    assert "role.prefill-instance-no-decode" in ids
    assert candidates(["cgconfig", "rules", "show", "role.pre"], 3) == [
        "role.prefill-instance-no-decode"]
    assert "role.decode-instance-no-prefill" in candidates(
        ["cgconfig", "resolve", "--disable-rule", "role."], 3)
    assert candidates(["cgconfig", "resolve", "--check", "--allow", "role.pre"], 4) == [
        "role.prefill-instance-no-decode"]


def test_complete_entry_point(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["__complete", "1", "cgconfig", "sch"]) == 0
    assert capsys.readouterr().out == "schema\n"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_scripts_call_back(shell: str) -> None:
    assert "cgconfig __complete" in script(shell)


def test_completion_path_imports_no_pydantic() -> None:
    import subprocess
    import sys

    code = ("import sys; from cgconfig.cli.main import main; "
            "main(['__complete', '2', 'cgconfig', 'resolve', '--cuda']); "
            "print('pydantic' in sys.modules, 'typer' in sys.modules, 'yaml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False False False"


def test_resolve_path_imports_no_pydantic_once_the_pack_cache_is_warm(tmp_path: object) -> None:
    import subprocess
    import sys

    code = ("import sys; from cgconfig.cli.main import main; "
            "main(['resolve', '-o', 'json', '--tp-size', '8']); "
            "print('MODULES', 'pydantic' in sys.modules, 'yaml' in sys.modules, "
            "'rich' in sys.modules, 'typer' in sys.modules, 'torch' in sys.modules)")
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "MODULES False False False False False"


def test_table_output_off_a_terminal_has_no_colour_codes() -> None:
    import os
    import subprocess
    import sys

    for env in ({"NO_COLOR": "1"}, {}):
        out = subprocess.run([sys.executable, "-m", "cgconfig.cli", "resolve",
                              "--disaggregation-mode", "prefill"], capture_output=True, text=True,
                             check=True, env={**os.environ, **env})
        assert "\x1b[" not in out.stdout
        assert "role.prefill-instance-no-decode" in out.stdout


def test_no_color_is_respected_even_when_colour_is_forced() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "FORCE_COLOR": "1", "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-m", "cgconfig.cli", "resolve"], capture_output=True,
                         text=True, check=True, env=env)
    assert "\x1b[3" not in out.stdout  # no foreground colours


def test_fish_completes_file_paths_where_cgconfig_has_no_candidates() -> None:
    """fish's `complete -f` turns file completion off, so the script must fall back to paths
    itself whenever `cgconfig __complete` answers nothing (a file is expected there)."""
    from cgconfig.cli.complete import candidates, script

    fish = script("fish")
    assert "__fish_complete_path (commandline -ct)" in fish
    assert "if test (count $found) -gt 0" in fish
    for words in (["cgconfig", "rules", "validate", ""], ["cgconfig", "diff", ""],
                  ["cgconfig", "resolve", "--deployment", ""],
                  ["cgconfig", "resolve", "--rules", ""]):
        assert candidates(words, len(words) - 1) == [], words


def test_diff_is_completed() -> None:
    from cgconfig.cli.complete import candidates

    assert "diff" in candidates(["cgconfig", "di"], 1)
    assert candidates(["cgconfig", "diff", "--"], 2) == ["--a", "--b", "--output"]
    assert candidates(["cgconfig", "diff", "-o", ""], 3) == ["table", "json", "yaml"]
