"""Issue #23 in process: the one safe writer, the cache directory, the one numeric parser
(YAML 1.2 integers, vendor-tool output), provenance of repeated keys, the engine's environment,
and the documented exceptions of the API and the runtime."""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from cgconfig import resolve_args
from cgconfig.docio import load_yaml_text
from cgconfig.errors import InputError
from cgconfig.gpu_probe import probe_gpu
from cgconfig.rules import cache
from cgconfig.safe_write import write_text
from cgconfig.terminal import json_text, safe_text


def test_safe_write_replaces_a_planted_symlink_never_its_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("secret")
    victim.chmod(0o600)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / "hist.json").symlink_to(victim)
    write_text(shared / "hist.json", "{}\n", where="-o")
    assert victim.read_text() == "secret"
    assert not (shared / "hist.json").is_symlink() and (shared / "hist.json").read_text() == "{}\n"


def test_safe_write_temporary_is_o_excl_o_nofollow(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim"
    victim.write_text("secret")
    monkeypatch.setattr("cgconfig.safe_write.temporary_name", lambda name: f".{name}.tmp")
    (tmp_path / ".out.json.tmp").symlink_to(victim)  # the name another user guessed
    with pytest.raises(InputError, match=r"cannot create a file beside out\.json"):
        write_text(tmp_path / "out.json", "x", where="-o")
    assert victim.read_text() == "secret" and not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("target", ["/dev/null", "fifo", "dir", ""])
def test_safe_write_refuses_non_regular_targets(tmp_path: Path, target: str) -> None:
    path = {"fifo": tmp_path / "fifo", "dir": tmp_path}.get(target, target)
    if target == "fifo":
        os.mkfifo(path)
    with pytest.raises(InputError):
        write_text(path, "x", where="-o")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_safe_write_cleans_up_on_a_full_disk(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(InputError, match="No space left on device"):
        write_text(tmp_path / "h.json", "x" * 100, where="-o")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


def test_runner_stats_write_goes_through_the_safe_writer(tmp_path: Path) -> None:
    from cgconfig.runtime.stats import RunnerStats

    stats = RunnerStats()
    stats.record_fallback("x", 3)
    with pytest.raises(InputError):
        stats.write_histogram("/dev/null")
    stats.write_histogram(tmp_path / "h.json")
    assert json.loads((tmp_path / "h.json").read_text())["phases"]["decode"] == {"3": 1}


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a symlink to another user needs root")
def test_cache_dir_through_another_users_symlink_is_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    report = mine / "packs-report-1.json"
    report.write_text("{}")
    link = tmp_path / "cg"
    link.symlink_to(mine)
    os.lchown(link, 4242, 4242)
    monkeypatch.setenv("CGCONFIG_CACHE_DIR", str(link))
    monkeypatch.delenv("CGCONFIG_NO_CACHE", raising=False)
    monkeypatch.setattr(cache, "_warned", [])
    cache.write_cache({"packs": [], "capabilities": None})
    assert sorted(p.name for p in mine.iterdir()) == [report.name]
    assert "a symlink another user owns" in capsys.readouterr().err


def test_the_escaper() -> None:
    assert safe_text("a\x1b[2Jb\u202e\ud800\x9b\n") == "a\\x1b[2Jb\\u202e\\ud800\\x9b\\n"
    assert safe_text("é 中 ·") == "é 中 ·"
    text = json_text(json.dumps({"k": "\x9b\ud800\u2028"}, ensure_ascii=False))
    assert json.loads(text) == {"k": "\x9b\ud800\u2028"} and text.isascii()


@pytest.mark.parametrize(("text", "value"), [
    ("a: 12", 12), ("a: 1_0", "1_0"), ("a: 1:00", "1:00"),
    ("a: 8_0", "8_0"), ("a: 1_0.5", "1_0.5"), ("a: 1.5", 1.5), ("a: 0", 0)])
def test_yaml_numbers_are_read_as_yaml_1_2(text: str, value: Any) -> None:
    assert load_yaml_text(text, "f")[0] == {"a": value}


@pytest.mark.parametrize("text", ["a: 010", "a: 0x1F", "a: !!int", "a: !!float", "a: !!bool",
                                  "a: !!timestamp", "  !!int", "a: !!int abc", "a: !!null x"])
def test_yaml_ambiguous_or_empty_tags_are_one_error(text: str) -> None:
    with pytest.raises(InputError):
        load_yaml_text(text, "f")


def _smi(out: str) -> Any:
    return lambda argv, timeout: (0, out)


@pytest.mark.parametrize("out", ["0, 9.0", "-1, 9.0", "٨١٩٢٠, 9.0", "８１９２０, 9.0",
                                 "1e400, 9.0", "inf, 9.0", "nan, 9.0"])
def test_nvidia_smi_memory_must_be_ascii_positive(out: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CGCONFIG_NO_GPU_PROBE", raising=False)
    reading = probe_gpu("cuda", run=_smi(out), which=lambda name: "/bin/" + name)
    assert reading.memory_gib is None and reading.source.startswith("unknown")


@pytest.mark.parametrize("cap", ["inf", "1e400", "٩.٠", "nan", "-9.0"])
def test_nvidia_smi_capability_must_be_a_plain_number(cap: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CGCONFIG_NO_GPU_PROBE", raising=False)
    reading = probe_gpu("cuda", run=_smi(f"81920, {cap}"), which=lambda name: "/bin/" + name)
    assert reading.memory_gib == 80.0 and reading.sm is None


@pytest.mark.parametrize("vram", ['"85_899_345_920"', '"0"', '"-1"', '"٨٥٨٩٩٣٤٥٩٢٠"', '1e400'])
def test_rocm_smi_vram_must_be_ascii_positive(vram: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CGCONFIG_NO_GPU_PROBE", raising=False)
    out = f'{{"card0": {{"VRAM Total Memory (B)": {vram}}}}}'
    reading = probe_gpu("hip", run=_smi(out), which=lambda name: "/bin/" + name)
    assert reading.memory_gib is None


def test_a_repeated_config_key_names_the_line_of_the_value_used(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(
        '{"architectures": ["LlamaForCausalLM"],\n"max_position_embeddings": 4096,\n'
        '"max_position_embeddings": 8192}\n')
    plan = resolve_args(["--model-path", str(tmp_path)])
    context = plan.key_facts["model_context_length"]
    assert context["value"] == 8192 and context["source"].endswith("config.json:3")


MEMORY_SAVER = ["python3", "-m", "sglang.launch_server", "--enable-memory-saver"]
ENV = {"SGLANG_MEMORY_SAVER_CUDA_GRAPH": "1"}


@pytest.mark.parametrize(("prefix", "environ", "refused"), [
    ([], ENV, True),
    (["env", "-i"], ENV, False),
    (["env", "-u", "SGLANG_MEMORY_SAVER_CUDA_GRAPH"], ENV, False),
    (["env", "--unset=SGLANG_MEMORY_SAVER_CUDA_GRAPH"], ENV, False),
    (["env", "-i", "SGLANG_MEMORY_SAVER_CUDA_GRAPH=1"], {}, True),
    (["docker", "run", "img"], ENV, False),
    (["docker", "run", "-e", "SGLANG_MEMORY_SAVER_CUDA_GRAPH=1", "img"], {}, True),
    (["docker", "run", "-e", "SGLANG_MEMORY_SAVER_CUDA_GRAPH", "img"], ENV, True),
], ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_the_engine_sees_the_environment_the_line_gives_it(
        prefix: list[str], environ: dict[str, str], refused: bool) -> None:
    from cgconfig.errors import RuleRefusal

    if refused:
        with pytest.raises(RuleRefusal):
            resolve_args([*prefix, *MEMORY_SAVER], environ=environ)
    else:
        resolve_args([*prefix, *MEMORY_SAVER], environ=environ)


def test_docker_note_names_every_wrapper_word() -> None:
    plan = resolve_args(["docker", "run", "-e", "A=1", "img", "python3", "-m",
                         "sglang.launch_server"])
    assert any("-e A=1 img" in n for n in plan.notes)


def test_two_cuda_graph_configs_keep_the_last_as_sglang_does() -> None:
    plan = resolve_args(["--cuda-graph-config", '{"decode": {"max_bs": 8}}',
                         "--cuda-graph-config", '{"prefill": {"max_bs": 64}}'])
    assert plan.config["prefill"]["max_bs"] == 64 and plan.config["decode"]["max_bs"] != 8
    assert any("keeps the last" in n for n in plan.notes)


def test_interpreter_options_before_dash_m() -> None:
    for options in (["-X", "dev"], ["-W", "ignore"], ["-Xdev", "-uB"], ["-OO"]):
        plan = resolve_args(["python3", *options, "-m", "sglang.launch_server", "--tp-size", "2"])
        assert plan.facts["tp_size"] == 2


@pytest.mark.parametrize("call", [
    lambda: resolve_args([], environ={1, 2}),  # type: ignore[arg-type]
    lambda: resolve_args([], environ=math.inf),  # type: ignore[arg-type]
    lambda: resolve_args([], environ={"A": 1}),  # type: ignore[dict-item]
    lambda: resolve_args([]).to_json(indent={"a": 1}),  # type: ignore[arg-type]
    lambda: resolve_args([]).to_json(indent=10_000_000),
    lambda: load_yaml_text("  !!int", "x"),
], ids=["environ-set", "environ-inf", "environ-int-value", "indent-dict", "indent-huge",
        "yaml-bare-int-tag"])
def test_api_raises_the_input_error_family(call: Any) -> None:
    with pytest.raises(InputError):
        call()


@pytest.mark.parametrize("doc", [{1: 2}, {"schema_version": 1, "phases": {1: {}}},
                                 {"schema_version": 1, "phases": {"decode": {1: 2}}},
                                 {"schema_version": 1, "phases": {"decode": {(1,): 2}}}])
def test_histogram_documents_with_odd_keys(doc: Any) -> None:
    from cgconfig.tune.histogram import from_document

    with pytest.raises(InputError):
        from_document(doc, "doc")


def test_namespace_attribute_holding_a_non_string_list() -> None:
    import argparse

    from cgconfig.api import add_arguments, resolve_namespace

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    namespace = parser.parse_args([])
    namespace.cgconfig_cuda_graph_bs_decode = [1, None]
    with pytest.raises(InputError):
        resolve_namespace(namespace)
