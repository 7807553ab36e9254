"""What the user accepts: inline comments, the configuration file, the baseline."""

from __future__ import annotations

import json

from tests.lint.conftest import Run, ids

SGLANG = "python3 -m sglang.launch_server --model-path m"
SCRIPT = f"{SGLANG} \\\n  --cuda-graph-max-bs 64\nvllm serve m --max-num-seqs 1024\n"


def test_inline_ignore_on_the_line_or_above(check: Run) -> None:
    on_line = f"{SGLANG} \\\n  --cuda-graph-max-bs 64  # cgconfig: ignore[CG012]\n"
    above = f"# cgconfig: ignore[refused-at-newest]\n{SGLANG} --cuda-graph-max-bs 64\n"
    other = f"# cgconfig: ignore[CG001]\n{SGLANG} --cuda-graph-max-bs 64\n"
    for text, expected in ((on_line, []), (above, []), (other, [("CG012", 2)])):
        _code, out, _ = check("-o", "json", "run.sh", files={"run.sh": text})
        assert ids(out) == expected, text
    _, out, _ = check("-o", "json", "run.sh", files={"run.sh": above})
    assert json.loads(out)["summary"]["suppressed"] == 1


def test_inline_ignore_in_markdown(check: Run) -> None:
    doc = "<!-- cgconfig: ignore[CG001] -->\n```bash\nvllm serve m --max-num-seqs 1024\n```\n"
    assert ids(check("-o", "json", "a.md", files={"a.md": doc})[1]) == []


def test_configuration_severity_ignore_and_versions(check: Run) -> None:
    config = ('[tool.cgconfig]\nseverity = {CG001 = "error"}\nignore = ["refused-flag"]\n'
              'engine-versions = {sglang = "0.5.19"}\n')
    code, out, _ = check("-o", "json", "run.sh", files={"run.sh": SCRIPT,
                                                        "pyproject.toml": config})
    assert ids(out) == [("CG001", 3)] and code == 1
    assert json.loads(out)["findings"][0]["severity"] == "error"


def test_dot_cgconfig_toml_wins_over_pyproject(check: Run) -> None:
    _code, out, _ = check("-o", "json", "run.sh", files={
        "run.sh": SCRIPT, "pyproject.toml": '[tool.cgconfig]\nignore = ["CG001"]\n',
        ".cgconfig.toml": 'ignore = ["CG012"]\n'})
    assert ids(out) == [("CG001", 3)]


def test_unknown_configuration_key_is_refused(check: Run) -> None:
    code, _, err = check("run.sh", files={"run.sh": SCRIPT,
                                          ".cgconfig.toml": 'severty = {CG001 = "error"}\n'})
    assert code == 2
    assert err == ("cgconfig: error: .cgconfig.toml: unknown key 'severty'; did you mean "
                   "'severity'?; allowed: severity, ignore, engine-versions, exclude, fail-on, "
                   "newest, gpu-memory-gib\n")
    for bad in ('ignore = ["CG999"]\n', 'fail-on = "fatal"\n', 'severity = {CG001 = 3}\n',
                'engine-versions = {sglan = "0.5.19"}\n', "ignore = [\n"):
        code, _, err = check("run.sh", files={".cgconfig.toml": bad})
        assert code == 2 and err.count("\n") == 1, (bad, err)


def test_baseline_accepts_what_was_there(check: Run) -> None:
    code, _, err = check("--baseline", "base.json", "--write-baseline", "run.sh",
                         files={"run.sh": SCRIPT})
    assert code == 0 and "wrote 2 findings to the baseline base.json" in err
    code, out, _ = check("-o", "json", "--baseline", "base.json", "run.sh")
    assert (code, ids(out)) == (0, [])
    assert json.loads(out)["summary"]["suppressed"] == 2
    # moving the lines keeps them accepted; a new finding is reported
    moved = "\n\n" + SCRIPT + "vllm serve n --max-num-seqs 1536\n"
    code, out, _ = check("-o", "json", "--baseline", "base.json", "run.sh",
                         files={"run.sh": moved})
    assert ids(out) == [("CG001", 6)]


def test_bad_baseline_is_refused(check: Run) -> None:
    code, _, err = check("--baseline", "base.json", "run.sh",
                         files={"run.sh": SCRIPT, "base.json": '{"findings": 3}'})
    assert code == 2 and "not a cgconfig baseline" in err
