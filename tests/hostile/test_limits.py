"""Each bound sits where the README says: the limit itself is accepted, one more is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from cgconfig import limits, resolve_args
from cgconfig.docio import load_json_text, load_yaml_text, read_text_file
from cgconfig.errors import InputError

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_the_readme_states_the_limits_of_limits_py() -> None:
    section = README.split("## Limits", 1)[1].split("\n## ", 1)[0]
    for number in (f"{limits.MAX_FILE_BYTES // (1 << 20)} MiB", f"{limits.MAX_DECODE_BATCH:,}",
                   f"{limits.MAX_PREFILL_TOKENS:,}", f"{limits.MAX_NESTING_DEPTH} levels",
                   f"{limits.MAX_DOCUMENT_NODES:,}", f"{limits.MAX_RULES_PER_PACK:,}",
                   f"{limits.MAX_QUOTE_CHARS} characters", f"{limits.MAX_INT_DIGITS} digits",
                   f"{limits.MAX_PARALLEL_SIZE:,}", f"{limits.MAX_STEP_SIZE:,}",
                   f"10^{len(str(limits.MAX_STEP_COUNT)) - 1}"):
        assert number in section, number
    for variable in ("CGCONFIG_CACHE_DIR", "CGCONFIG_NO_CACHE", "CGCONFIG_NO_GPU_PROBE",
                     "CGCONFIG_FUZZ_EXAMPLES"):
        assert variable in section, variable


@pytest.mark.parametrize(("flag", "limit"), [
    ("--cuda-graph-max-bs-decode", limits.MAX_DECODE_BATCH),
    ("--cuda-graph-max-bs-prefill", limits.MAX_PREFILL_TOKENS),
    ("--chunked-prefill-size", limits.MAX_PREFILL_TOKENS),
])
def test_size_limits_are_inclusive(flag: str, limit: int) -> None:
    plan = resolve_args(["--gpu-memory-gib", "80", flag, str(limit)])
    assert plan.to_dict()
    with pytest.raises(InputError, match=f"above the limit of {limit}"):
        resolve_args(["--gpu-memory-gib", "80", flag, str(limit + 1)])


def test_nesting_limit() -> None:
    depth = limits.MAX_NESTING_DEPTH
    assert load_json_text("[" * depth + "]" * depth, "x") is not None
    with pytest.raises(InputError, match="nested"):
        load_json_text("[" * (depth + 1) + "]" * (depth + 1), "x")
    with pytest.raises(InputError, match="nested"):
        load_yaml_text("a: " + "[" * (depth + 2) + "]" * (depth + 2), "x.yaml")


def test_alias_expansion_limit() -> None:
    small = "a: &a [1, 2]\nb: [*a, *a, *a]\n"
    assert load_yaml_text(small, "x.yaml")[0]["b"] == [[1, 2]] * 3
    bomb = "a: &a [" + ", ".join(["1"] * 100) + "]\nb: &b [" + ", ".join(["*a"] * 100) + \
        "]\nc: [" + ", ".join(["*b"] * 100) + "]\n"
    with pytest.raises(InputError, match="aliases"):
        load_yaml_text(bomb, "x.yaml")


def test_file_size_limit(tmp_path: Path) -> None:
    ok = tmp_path / "ok.json"
    ok.write_bytes(b" " * limits.MAX_FILE_BYTES)
    assert read_text_file(str(ok), "f") == " " * limits.MAX_FILE_BYTES
    ok.write_bytes(b" " * (limits.MAX_FILE_BYTES + 1))
    with pytest.raises(InputError, match="MiB limit"):
        read_text_file(str(ok), "f")


def test_quotes_are_cut() -> None:
    assert len(limits.quote("x" * 10_000)) == limits.MAX_QUOTE_CHARS
    assert limits.quote_key("decode") == "'decode'"
    assert "root" not in limits.quote_key("root:$6$abc:1:::")
