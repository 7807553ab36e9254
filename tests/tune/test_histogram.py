"""Histogram files: round trips (runtime writer, converter, reader) and bad files (exit 2)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cgconfig.cli.main import main
from cgconfig.engines.sglang.tune_log import histogram_from_lines
from cgconfig.errors import InputError
from cgconfig.tune import histogram

counts = st.dictionaries(st.integers(1, histogram.MAX_SIZE), st.integers(1, 10**12), max_size=30)


@settings(max_examples=200, deadline=None)
@given(counts, counts, st.one_of(st.none(), st.text(max_size=20)))
def test_round_trip(decode, prefill, source) -> None:
    original = histogram.Histogram(phases={"decode": decode, "prefill": prefill},
                                   source=source or None)
    again = histogram.loads(histogram.dumps(original), "test")
    assert again.phase("decode") == dict(sorted(decode.items()))
    assert again.phase("prefill") == dict(sorted(prefill.items()))
    assert again.source == (source or None)


def test_runtime_writer_round_trips(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from cgconfig.runtime import RunnerStats, write_histograms

    decode, prefill = RunnerStats(phase="decode"), RunnerStats(phase="prefill")
    for size in (3, 3, 5, 9):
        decode.record_replay(size, 8 if size < 8 else 16, 1)
    decode.record_fallback("over_max_size", 300)
    prefill.record_replay(100, 128, 1)
    path = tmp_path / "h.json"
    decode.write_histogram(path)
    assert histogram.load(path).phases == {"decode": {3: 2, 5: 1, 9: 1, 300: 1}}
    write_histograms(path, {"decode": decode, "prefill": prefill})
    loaded = histogram.load(path)
    assert loaded.phase("prefill") == {100: 1} and loaded.phase("decode")[300] == 1
    decode.reset()
    assert decode.histogram() == {}


def test_sglang_log_lines() -> None:
    lines = [
        "[2026-03-02 10:14:38 TP0] Decode batch. #running-req: 18, #token: 16384, token usage: "
        "0.71, cuda graph: True, gen throughput (token/s): 2520.18, #queue-req: 3",
        "[2026-03-02 10:14:39] Decode batch, #running-req: 8, #running-req per DP: [2, 3, 3], "
        "#queue-req: 0,",
        "[2026-03-02 10:14:40 TP0] Prefill batch. #new-seq: 1, #new-token: 115, #cached-token: "
        "351, token usage: 0.02, #running-req: 0, #queue-req: 0,",
        "INFO:     127.0.0.1:54504 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
    ]
    hist = histogram_from_lines(lines, interval=10)
    assert hist.phases == {"decode": {2: 10, 3: 20, 18: 10}, "prefill": {115: 1}}
    with pytest.raises(InputError, match="no 'Decode batch'"):
        histogram_from_lines(["nothing here"])


def test_histogram_command_converts_a_log(tmp_path: Path, capsys) -> None:
    log = tmp_path / "server.log"
    log.write_text("[x TP0] Decode batch. #running-req: 7, #token: 1\n" * 3)
    out = tmp_path / "h.json"
    assert main(["histogram", "--sglang-log", str(log), "-o", str(out)]) == 0
    assert histogram.load(out).phases == {"decode": {7: 120}}
    assert main(["histogram", "--sglang-log", str(tmp_path / "missing.log")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--sglang-log" in err


BAD_FILES = [
    ("not json", "{", "not valid JSON"),
    ("a list", "[1, 2]", "must be a JSON object"),
    ("no version", '{"phases": {}}', "schema_version"),
    ("version 2", '{"schema_version": 2, "phases": {}}', "schema_version 2"),
    ("bool version", '{"schema_version": true, "phases": {}}', "schema_version"),
    ("unknown key", '{"schema_version": 1, "phase": {}}', "did you mean 'phases'"),
    ("unknown phase", '{"schema_version": 1, "phases": {"decod": {}}}', "did you mean 'decode'"),
    ("size not a number", '{"schema_version": 1, "phases": {"decode": {"x": 1}}}',
     "decimal integer"),
    ("size zero", '{"schema_version": 1, "phases": {"decode": {"0": 1}}}', "out of range"),
    ("size huge", '{"schema_version": 1, "phases": {"decode": {"99999999": 1}}}', "out of range"),
    ("negative count", '{"schema_version": 1, "phases": {"decode": {"4": -1}}}', "out of range"),
    ("float count", '{"schema_version": 1, "phases": {"decode": {"4": 1.5}}}', "integer"),
    ("bool count", '{"schema_version": 1, "phases": {"decode": {"4": true}}}', "integer"),
    ("string count", '{"schema_version": 1, "phases": {"decode": {"4": "3"}}}', "integer"),
    ("deep", "[" * 100000 + "]" * 100000, "histogram"),
    ("long int", '{"schema_version": 1, "phases": {"decode": {"4": ' + "9" * 5000 + "}}}",
     "histogram"),
    ("no decode phase", '{"schema_version": 1, "phases": {"prefill": {"4": 1}}}',
     "no decode batch sizes"),
]


@pytest.mark.parametrize(("name", "text", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_histogram_files_exit_2(tmp_path: Path, capsys, name, text, message) -> None:
    path = tmp_path / "h.json"
    path.write_text(text)
    assert main(["tune", "--histogram", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("cgconfig: error: --histogram")
    assert message in captured.err
    assert "Traceback" not in captured.err + captured.out


def test_unreadable_histogram_paths_exit_2(tmp_path: Path, capsys) -> None:
    cases = [str(tmp_path / "missing.json"), str(tmp_path), "/dev/zero"]
    (tmp_path / "latin1.json").write_bytes(b'{"schema_version": 1, "source": "\xe9"}')
    cases.append(str(tmp_path / "latin1.json"))
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(histogram.MAX_FILE_BYTES + 1)
    cases.append(str(big))
    fifo = tmp_path / "fifo"
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
        cases.append(str(fifo))
    for path in cases:
        assert main(["tune", "--histogram", path]) == 2, path
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--histogram" in err, err


def test_written_file_is_the_documented_format(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    histogram.write(path, histogram.Histogram(phases={"decode": {8: 3, 2: 1}}))
    assert json.loads(path.read_text()) == {"schema_version": 1,
                                            "phases": {"decode": {"2": 1, "8": 3}}}
