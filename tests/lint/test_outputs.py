"""The output formats: the table grouped by file, JSON, SARIF 2.1.0 (validated against the
OASIS schema), GitHub workflow commands and Markdown; and the exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from tests.lint.conftest import Run, findings

SCHEMA = Path(__file__).parents[1] / "data" / "sarif" / "sarif-schema-2.1.0.json"
SGLANG = "python3 -m sglang.launch_server --model-path m"
FILES = {
    ".cgconfig.toml": 'engine-versions = {sglang = "0.5.23"}\n',  # pinned: a refusal is an error
    "a/run.sh": f"{SGLANG} --cuda-graph-max-bs 64\n",
    "b/serve.sh": "vllm serve m --max-num-seqs 1024\n",
    "docs/guide.md": "Launch:\n\n```bash\nvllm serve m \\\n  --max-num-seqs 2048\n```\n",
}


def test_table_groups_findings_by_file(check: Run) -> None:
    code, out, _ = check(".", files=FILES)
    assert code == 1
    assert out.index("a/run.sh") < out.index("CG002") < out.index("b/serve.sh") < \
        out.index("docs/guide.md")
    assert out.rstrip().endswith("3 findings (1 error, 2 warnings) in 3 files, 3 launches "
                                 "checked")


def test_markdown_code_block_lines_are_the_file_lines(check: Run) -> None:
    _, out, _ = check("-o", "json", "docs/guide.md", files=FILES)
    (found,) = findings(out)
    assert (found["file"], found["line"]) == ("docs/guide.md", 5)


def test_sarif_is_valid_sarif_2_1_0(check: Run) -> None:
    _code, out, _ = check("-o", "sarif", ".", files=FILES)
    document = json.loads(out)
    jsonschema.validate(document, json.loads(SCHEMA.read_text()))
    run = document["runs"][0]
    assert document["version"] == "2.1.0"
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    results = run["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("CG002", "error"), ("CG001", "warning"), ("CG001", "warning")]
    for result in results:
        assert rules[result["ruleIndex"]] == result["ruleId"]
    location = results[0]["locations"][0]["physicalLocation"]
    assert location == {"artifactLocation": {"uri": "a/run.sh", "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": 1}}


def test_sarif_validation_can_fail() -> None:
    schema = json.loads(SCHEMA.read_text())
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}  # a driver needs a name
    try:
        jsonschema.validate(bad, schema)
    except jsonschema.ValidationError:
        return
    raise AssertionError("the schema accepted a driver without a name")


def test_github_annotations_escape_their_properties(check: Run) -> None:
    _code, out, _ = check("-o", "github", "a/run.sh", files=FILES)
    first = out.splitlines()[0]
    assert first.startswith("::error file=a/run.sh,line=1,title=CG002 refused-flag::")
    assert "%2C" not in first.split("::")[1].split(",title")[0]
    assert "Fix: use --cuda-graph-max-bs-decode" in first
    _, out, _ = check("-o", "github", "x,y:z.sh", files={"x,y:z.sh": FILES["a/run.sh"]})
    assert out.startswith("::error file=x%2Cy%3Az.sh,line=1,")


def test_markdown_comment(check: Run) -> None:
    _, out, _ = check("-o", "markdown", ".", files=FILES)
    assert out.startswith("### cgconfig check\n\n3 findings")
    assert "#### `b/serve.sh`" in out
    assert "| 1 | warning | CG001 eager-requests |" in out


def test_json_summary(check: Run) -> None:
    _, out, _ = check("-o", "json", ".", files=FILES)
    summary = json.loads(out)["summary"]
    assert summary == {"files": 3, "launches": 3, "findings": 3, "suppressed": 0, "error": 1,
                       "warning": 2, "note": 0}


def test_exit_codes_follow_fail_on(check: Run) -> None:
    assert check("b/serve.sh", files=FILES)[0] == 0  # warnings only
    assert check("--fail-on", "warning", "b/serve.sh")[0] == 1
    assert check("--fail-on", "never", "a/run.sh")[0] == 0
    assert check("a/run.sh")[0] == 1


def test_bad_input_is_one_line_and_exit_2(check: Run) -> None:
    for args, words in ((("-o", "sariff", "."), "did you mean 'sarif'"),
                        (("--fail-on", "errors", "."), "did you mean 'error'"),
                        (("nothere.sh",), "no such file or folder: nothere.sh"),
                        (("--select", "CG0001", "."), "unknown finding 'CG0001'"),
                        (("--set", "=1", "."), "expected VAR=VALUE"),
                        (("--engine-version", "foo==1", "."), "unknown engine 'foo'"),
                        (("--severity", "CG001", "."), "expected ID=LEVEL")):
        code, _out, err = check(*args, files=FILES)
        assert code == 2, args
        assert err.count("\n") == 1 and err.startswith("cgconfig: error: "), err
        assert words in err, (args, err)


def test_clean_repository_exits_0(check: Run) -> None:
    code, out, _ = check(".", files={"ok.sh": "echo hello\n", "README.md": "# nothing\n"})
    assert code == 0
    assert "0 findings in 2 files, 0 launches checked" in out
