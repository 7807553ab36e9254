"""An engine is one folder plus one registry row: ToyLLM (``tests/core/toy_engine/toyllm/``, a
package outside cgconfig's tree, registered by ``run_cli.py`` with ``line.registry.register``)
is resolved, emitted, explained, verified from its own log and diffed with no core module
naming it. Each command runs in a fresh interpreter, since cgconfig reads the registry at
import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cgconfig.line import registry

HERE = Path(__file__).resolve().parent
RUN = HERE / "toy_engine" / "run_cli.py"
ENV = {**os.environ, "COLUMNS": "100", "CGCONFIG_NO_GPU_PROBE": "1", "NO_COLOR": "1"}


def _cgconfig(*args: str, toy: bool = True) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(RUN)] if toy else [sys.executable, "-m", "cgconfig.cli"]
    return subprocess.run([*command, *args], capture_output=True, text=True, env=ENV,
                          timeout=120, check=False)


def test_resolve_reads_its_line_and_its_table() -> None:
    done = _cgconfig("resolve", "toyllm", "serve", "M", "--max-batch-size", "8", "--port", "1")
    assert done.returncode == 0, done.stderr
    assert "engine: ToyLLM 1.0" in done.stdout
    assert "1, 2, 4, 8" in done.stdout
    assert "Ignored (no effect on CUDA graphs): --port" in done.stdout


def test_its_own_rule_pack_fires_in_resolve_and_explain() -> None:
    """ToyLLM's pack (``toyllm/rules/10-toy-decode.yaml``, beside its code) is found through
    the registry like SGLang's: its rule runs on a ToyLLM line, and no other process knows it."""
    line = ("toyllm", "serve", "M", "--max-batch-size", "16")
    done = _cgconfig("resolve", "-o", "json", *line)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["config"]["decode"]["backend"] == "disabled"
    assert "toy.decode-eager-over-eight" in [d["rule"] for d in plan["decisions"]]
    small = json.loads(_cgconfig("resolve", "-o", "json", "toyllm", "serve", "M",
                                 "--max-batch-size", "8").stdout)
    assert small["config"]["decode"]["backend"] == "full"
    explained = _cgconfig("explain", "decode.backend", *line)
    assert explained.returncode == 0, explained.stderr
    assert "rule:toy.decode-eager-over-eight" in explained.stdout
    assert "ToyLLM 1.0 captures decode graphs" in " ".join(explained.stdout.split())
    unknown = _cgconfig("rules", "show", "toy.decode-eager-over-eight", toy=False)
    assert unknown.returncode == 2, unknown.stdout


def test_a_three_word_entry_point_and_the_dialect_flag() -> None:
    done = _cgconfig("resolve", "-o", "json", "toyctl", "serve", "api_server", "M",
                     "--max-batch-size", "2")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["config"]["decode"]["bs"] == [1, 2]
    dialect = _cgconfig("resolve", "--dialect", "toyllm", "--toy-max-batch-size", "4")
    assert dialect.returncode == 0, dialect.stderr
    assert "1, 2, 4" in dialect.stdout


def test_emit_names_every_key_it_cannot_say() -> None:
    done = _cgconfig("resolve", "--emit", "toyllm", "toyllm", "serve", "M",
                     "--max-batch-size", "4")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "--max-batch-size 4"
    assert "not expressible in toyllm: decode.bs=[1, 2, 4]" in done.stderr


def test_explain_names_the_flag() -> None:
    done = _cgconfig("explain", "decode.bs", "toyllm", "serve", "M", "--max-batch-size", "4")
    assert done.returncode == 0, done.stderr
    assert "--max-batch-size" in done.stdout and "[1, 2, 4]" in done.stdout


@pytest.mark.parametrize(("logged", "code"), [((1, 2, 4), 0), ((1, 2), 1)])
def test_verify_reads_its_log(tmp_path: Path, logged: tuple[int, ...], code: int) -> None:
    log = tmp_path / "toy.log"
    log.write_text("toyllm 1.0 starting\n" + "".join(
        f"toyllm captured decode graph bs={n}\n" for n in logged))
    done = _cgconfig("verify", str(log), "toyllm", "serve", "M", "--max-batch-size", "4")
    assert done.returncode == code, done.stdout + done.stderr
    assert "ToyLLM 1.0" in done.stdout


def test_diff_compares_two_lines() -> None:
    done = _cgconfig("diff", "--a", "toyllm serve M --max-batch-size 4",
                     "--b", "toyllm serve M --max-batch-size 16")
    assert done.returncode == 1, done.stderr
    assert "+ 8, 16" in done.stdout


def test_an_engine_the_registry_lacks_is_refused_in_one_line() -> None:
    done = _cgconfig("resolve", "--dialect", "toyllm", toy=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "cgconfig: error: --dialect: unknown dialect 'toyllm'; did you mean 'trtllm'?; "
        "allowed: " + ", ".join(registry.names())]
