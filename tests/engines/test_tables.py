"""The engine flag tables: every flag splits cleanly, and the classification agrees with cgconfig."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig.fields.flags import ALL_FLAGS
from cgconfig.line import ENGINES, EngineFlag, load_table
from cgconfig.line.split import split_argv
from cgconfig.line.table import table_path
from cgconfig.line.tokens import ENGINE_PARSERS
from cgconfig.line.versions import SUPPORTED
from cgconfig.sources.dialect_flags import dialect_flags, engine_flags


def _argv(flag: EngineFlag, spelling: str) -> list[str]:
    """The flag with its table sample, repeated to the arity the engine wants."""
    if flag.positional:
        return [flag.sample or "MODEL"]
    if not flag.takes_value:
        return [spelling]
    assert flag.sample is not None, f"{flag.name} takes a value but the table has no sample"
    count = flag.nargs if isinstance(flag.nargs, int) and flag.nargs > 0 else 1
    return [spelling, *[flag.sample] * count]


def _cases() -> list[tuple[str, EngineFlag, str]]:
    cases = []
    for engine in ENGINES:
        for flag in load_table(engine).flags:
            for spelling in flag.options or (flag.dest,):
                cases.append((engine, flag, spelling))
    return cases


@pytest.mark.parametrize(("engine", "flag", "spelling"), _cases(),
                         ids=lambda v: v if isinstance(v, str) else None)
def test_every_flag_is_carved_out_by_the_splitter(engine: str, flag: EngineFlag,
                                                  spelling: str) -> None:
    """On a line with the engine's entry point, the splitter hands each spelling of each
    flag, with its sample, to the engine (its whole table's owner) or to the dialect source that
    reads it; ``test_every_table_flag.py`` resolves each flag through the whole reading."""
    if flag.positional:
        return
    argv = _argv(flag, spelling)
    table = engine_flags(engine, load_table(engine).version)
    split = split_argv(argv, (table, *dialect_flags().values()), dialect=engine,
                       also_kept=(table.owner,), parser=ENGINE_PARSERS[engine])
    owners = [owner for owner, part in split.parts.items() if part.args]
    assert owners and argv[0].partition("=")[0] in [
        a.name for owner in owners for a in split.parts[owner].args], (owners, argv)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_table_records_its_origin(engine: str) -> None:
    data = json.loads(Path(table_path(engine)).read_text())
    for key in ("engine", "version", "generated", "generator", "source", "parser"):
        assert data[key], key
    assert data["generator"] == "scripts/gen_engine_tables.py"
    table = load_table(engine)
    assert table.flags and all(f.status in ("modelled", "ignored") for f in table.flags)


def test_table_sizes_match_the_engines() -> None:
    # 531 = SGLang 0.5.23's ServerArgs.add_cli_args actions minus --help (the figure issue 9 cites)
    assert len(load_table("sglang", "0.5.23").flags) == 531
    assert load_table("sglang").version == SUPPORTED["sglang"][-1]  # the default: the newest
    assert load_table("vllm").version == SUPPORTED["vllm"][-1]


def test_every_sglang_flag_cgconfig_reads_is_modelled() -> None:
    sglang = load_table("sglang")
    ours = {s for f in ALL_FLAGS if f.kind != "setting" for s in (f.name, *f.aliases)}
    for spelling in ours:
        flag = sglang.lookup(spelling)
        if flag is not None:
            assert flag.modelled, f"{spelling} is read by cgconfig but the table says ignored"


@pytest.mark.parametrize("name", ["--model-path", "--max-total-tokens", "--page-size",
                                  "--speculative-num-steps", "--speculative-eagle-topk",
                                  "--attn-dp-size", "--dwdp-size", "--msprobe-dump-config",
                                  "--enable-prefill-cp", "--cp-strategy",
                                  "--json-model-override-args"])
def test_issue_graph_flags_are_marked(name: str) -> None:
    flag = load_table("sglang").lookup(name)
    assert flag is not None and flag.graph_effect and flag.note


def test_short_forms_of_vllm() -> None:
    vllm = load_table("vllm")
    for short, long in [("-tp", "--tensor-parallel-size"), ("-pp", "--pipeline-parallel-size"),
                        ("-dp", "--data-parallel-size"), ("-cc", "--compilation-config")]:
        assert vllm.lookup(short) is vllm.lookup(long)
    assert vllm.lookup("--optimization-level") is not None
    assert [f.dest for f in vllm.positionals] == ["model_tag"]


def test_every_vllm_flag_the_dialect_reads_is_modelled() -> None:
    from cgconfig.engines.vllm.flags import DIALECT_FLAGS as VLLM_FLAGS

    vllm = load_table("vllm")
    known = [name for name in VLLM_FLAGS.flags if vllm.lookup(name) is not None]
    assert "--compilation-config" in known and "--enforce-eager" in known
    for name in known:
        flag = vllm.lookup(name)
        assert flag is not None and flag.modelled, f"{name} is read by the vLLM dialect but ignored"


def test_cgconfig_only_vllm_inputs_are_not_vllm_flags() -> None:
    # cgconfig's own inputs for facts vLLM derives itself; vLLM 0.33.0 rejects them.
    vllm = load_table("vllm")
    for name in ("--num-speculative-tokens", "--cudagraph-support", "--vllm-attention-backend"):
        assert vllm.lookup(name) is None


def test_deprecations_come_from_the_engine() -> None:
    # SGLang 0.5.23 keeps only these two graph switches as deprecated flags (plus one kernel flag).
    deprecated = {f.name for f in load_table("sglang").flags if f.deprecated}
    assert deprecated == {"--disable-cuda-graph", "--enable-dp-attention", "--monokernel-backend"}
    # ...and no longer has the old aliases cgconfig still accepts (argparse: ambiguous or unknown).
    for alias in ("--cuda-graph-max-bs", "--enable-breakable-cuda-graph", "--disable-piecewise-cuda-graph"):
        assert load_table("sglang").lookup(alias) is None


def test_flags_modelled_before_a_release_are_modelled_only_below_it() -> None:
    """``overlay.yaml``'s ``modelled_before`` (vLLM's context-parallel sizes, read by 0.12.0's
    ``VllmConfig.__post_init__`` only): those flags are modelled in the tables below the bound
    and keep their ``graph_effect_unmodelled`` note from it on."""
    import yaml

    from cgconfig.line.versions import parse_version

    overlay = yaml.safe_load((Path(table_path("vllm", "0.33.0")).parent.parent
                              / "overlay.yaml").read_text())
    bounds = overlay["modelled_before"]
    assert bounds
    for bound, flags in bounds.items():
        for release in SUPPORTED["vllm"]:
            table = load_table("vllm", release)
            this, limit = parse_version(release), parse_version(str(bound))
            assert this is not None and limit is not None
            below = this.order < limit.order
            for name in flags:
                flag = table.by_spelling.get(name)
                if flag is None:  # vLLM 0.10.2, 0.11.2 have no --prefill-context-parallel-size
                    assert release in ("0.10.2", "0.11.2"), (release, name)
                    assert name == "--prefill-context-parallel-size"
                    continue
                assert flag.modelled is below, (release, name)
                assert flag.graph_effect, (release, name)
