"""The SGLang source: cgconfig's own flags (or a whole SGLang launch line), and the documents
its flags name (``--cuda-graph-config`` values, a ``--deployment`` file)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cgconfig.engines.sglang.argv import parse_argv, sglang_args
from cgconfig.errors import InputError
from cgconfig.line.split import Arg, Part
from cgconfig.provenance import Layer, Leaf, Origin
from cgconfig.resolve.request import DialectDefault, ResolveRequest
from cgconfig.sources.contribution import Contribution
from cgconfig.sources.documents import facts_from_file, leaves_from_config_arg

#: Per dialect, what an unexpected positional usually is (naming only that engine's flags).
_POSITIONAL_HINTS = {
    "sglang": "every input is a --flag (a config document goes after --cuda-graph-config)",
    "vllm": "every input is a --flag: vLLM's switches (--enforce-eager) take no value, and a "
            "compilation config goes after --compilation-config (-cc)",
    "trtllm": "every input is a --flag (an options file goes after --extra_llm_api_options)",
}


@dataclass
class SglangArgv:
    """SGLang-dialect tokens of one command line."""

    tokens: list[str]
    allow_positionals: bool = False
    """``explain`` takes keys as positionals; ``resolve`` takes none."""
    ignore_unknown: bool | None = None
    engine: str = "sglang"
    """The engine whose flags the line may carry besides cgconfig's (its entry point's)."""
    dialect: str = "sglang"
    """The line's dialect: an error's hint names only that engine's flags."""
    positionals: list[str] = field(default_factory=list)
    """The positionals found (``explain``'s keys), once :meth:`contribute` ran."""
    args: list[Arg] | None = None
    """The tokens' runs as the split grouped them (grouped by the parser when absent)."""

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Parse the tokens once; read the documents they name."""
        from cgconfig.line.versions import release_label  # so_far: only the engine version

        parsed = parse_argv(self.tokens, release=_release(self.engine, so_far),
                            ignore_unknown=self.ignore_unknown, engine=self.engine,
                            args=self.args or None)
        if parsed.positionals and not self.allow_positionals and self.engine == "vllm":
            # As vLLM's own parser says it; a vLLM line's error names vLLM's flags only.
            raise InputError(f"unrecognized arguments: {parsed.positionals[0]} "
                             f"({release_label('vllm', so_far.engine_version)} vllm serve)",
                             where="vllm serve",
                             hint="vllm serve takes one positional, the model; a boolean flag "
                                  "takes no value (--enforce-eager, or --no-enforce-eager)")
        if parsed.positionals and not self.allow_positionals:
            raise InputError(f"unexpected argument {parsed.positionals[0]!r}",
                             where="command line", hint=_POSITIONAL_HINTS.get(
                                 self.dialect, _POSITIONAL_HINTS["sglang"]))
        self.positionals = list(parsed.positionals)
        leaves = list(parsed.leaves)
        notes = list(parsed.notes)
        if len(parsed.config_docs) > 1:  # argparse keeps the last value of a repeated option
            notes.append(f"--cuda-graph-config given {len(parsed.config_docs)} times: "
                         f"{release_label('sglang', so_far.engine_version)} keeps the last one "
                         "(argparse), so only the last is read")
        # argparse converts every occurrence (a malformed first one is refused too); the last
        # one's value is what SGLang keeps.
        read_keys, backends = _release_vocabulary(self.engine, so_far)
        documents = [leaves_from_config_arg(raw, position, read_keys=read_keys, backends=backends)
                     for raw, position in parsed.config_docs]
        if documents:
            leaves += documents[-1]
        if self.engine == "sglang":  # argparse checks every flag; SGLang validates the last JSON
            from cgconfig.engines.sglang.tc_piecewise import check_backends

            check_backends(_release("sglang", so_far),
                           [(leaf.value, leaf.origin.describe())
                            for leaf in leaves if leaf.key.endswith(".backend")])
        facts: dict[str, Any] = {}
        where: dict[str, str] = {}
        if parsed.deployment is not None:
            facts, where = facts_from_file(parsed.deployment)
        for name, (value, flag) in parsed.facts.items():
            facts[name] = value
            where[name] = flag
        if self.engine == "sglang":  # the release's start-up refusals of unmodelled inputs
            from cgconfig.engines.sglang.release_checks import check_release_inputs

            check_release_inputs(
                _release("sglang", so_far), parsed.ignored, facts,
                [(leaf.key, f"--cuda-graph-config at {leaf.origin.at}")
                 for doc in documents for leaf in doc])
        defaults: list[DialectDefault] = []
        # SGLang 0.5.12's PD prefill step reads --disable-piecewise-cuda-graph as given, before
        # the legacy switches are folded (--enforce-piecewise-cuda-graph drops that leaf)
        # (0.5.10's reads the cascade's result: off unless --enforce-piecewise-cuda-graph)
        piecewise_off = any(leaf.key == "prefill.backend"
                            and leaf.origin.source == "--disable-piecewise-cuda-graph"
                            for leaf in leaves)
        enforced = any(leaf.origin.source == "--enforce-piecewise-cuda-graph" for leaf in leaves)
        # SGLang 0.5.8's PD prefill step reads its opt-in switch as given
        enabled = "--enable-piecewise-cuda-graph" in parsed.ignored
        if self.engine == "sglang":
            leaves, defaults = _fold_legacy_graph_switches(leaves, _release("sglang", so_far))
            leaves += _fold_piecewise_opt_in(enabled, _release("sglang", so_far))
        leaves += _fold_dwdp_size(facts, where)
        leaves += _fold_pd_prefill_disable(facts, where, _release("sglang", so_far),
                                           piecewise_off, enforced, enabled)
        said = release_label('sglang', so_far.engine_version)
        _fold_attn_dp_size(facts, where, said)
        deprecations = list(parsed.deprecations)
        if self.engine == "sglang":
            deprecations += _fold_backend_aliases(facts, where, said)
        return Contribution(
            leaves=leaves, facts=facts, fact_sources=where, defaults=defaults,
            deprecations=deprecations, notes=notes,
            ignored=list(parsed.ignored),
            settings=parsed.settings)


def _release_vocabulary(engine: str, so_far: ResolveRequest
                        ) -> tuple[frozenset[str], tuple[str, ...]]:
    """The ``--cuda-graph-config`` keys the line's SGLang release reads that make no plan key,
    and the backends it accepts."""
    from cgconfig.constants import BACKENDS

    if engine != "sglang":
        return frozenset(), BACKENDS
    from cgconfig.engines.sglang.tc_piecewise import backends_of, read_config_keys

    release = _release(engine, so_far)
    return read_config_keys(release), backends_of(release)


def _release(engine: str, so_far: ResolveRequest) -> str:
    """The release of ``engine`` whose table reads the words: the line's chosen release when
    the line is ``engine``'s; on a line of another dialect (``--dialect vllm`` with no entry
    point), whose SGLang words are cgconfig's own flags, the SGLang release of the line's
    version selection does not exist, so SGLang's newest table reads them."""
    from cgconfig.line.versions import newest

    chosen = so_far.engine_version
    if chosen is not None and chosen.engine == engine:
        return chosen.version
    return newest(engine)


#: SGLang 0.5.23's deprecated attention-backend names and what it reads them as
#: (``srt/arg_groups/serving_hook.py:_handle_deprecated_args``).
_BACKEND_ALIASES = {"compressed": "dsv4", "tokenspeed_mla": "cutedsl_mla"}
_BACKEND_FACTS = ("attention_backend", "decode_attention_backend", "prefill_attention_backend")


def _fold_backend_aliases(facts: dict[str, Any], where: dict[str, str],
                          release: str) -> list[str]:
    """Each deprecated attention-backend name as the backend SGLang 0.5.23 renames it to,
    before any check reads it; a prefill backend renamed to the decode-only ``cutedsl_mla``
    becomes ``trtllm_mla`` (``serving_hook.py:_handle_deprecated_args``). Returns SGLang's
    deprecation warnings, naming ``release`` (``SGLang 0.5.20``)."""
    said = []
    for name in _BACKEND_FACTS:
        old = facts.get(name)
        if not isinstance(old, str) or old not in _BACKEND_ALIASES:
            continue
        new = _BACKEND_ALIASES[old]
        flag = "--" + name.replace("_", "-")
        said.append(f"{flag}={old} is deprecated; use '{new}' instead ({release})")
        if name == "prefill_attention_backend" and new == "cutedsl_mla":
            new = "trtllm_mla"  # cutedsl_mla is decode-only
        facts[name] = new
        where[name] = f"{where.get(name, flag)} {old} (SGLang reads {new})"
    return said


def _fold_attn_dp_size(facts: dict[str, Any], where: dict[str, str], release: str) -> None:
    """``--attn-dp-size N`` as the DP-attention facts cgconfig models (``dp_size N`` with
    ``enable_dp_attention``): SGLang 0.5.23 turns the older spelling into the newer one
    (``srt/arg_groups/parallel_hook.py:_handle_deprecated_dp_attention``) and resolves both
    alike; next to ``--dp-size`` above 1 it refuses the line
    (``parallel_hook.py:_handle_data_parallelism``)."""
    size = facts.get("attn_dp_size")
    if not isinstance(size, int) or size <= 1:
        return
    flag = where.get("attn_dp_size", "--attn-dp-size")
    dp_size = facts.get("dp_size")
    if isinstance(dp_size, int) and dp_size > 1:
        raise InputError(f"{release} refuses --dp-size {dp_size} with {flag} {size}: "
                         "data-parallel replicas combined with attention data parallelism are "
                         "not supported", where=flag,
                         hint=f"give {flag} {size} alone, or --dp-size {dp_size} "
                              "--enable-dp-attention")
    facts["dp_size"], facts["enable_dp_attention"] = size, True
    where["dp_size"] = where["enable_dp_attention"] = f"{flag} {size}"


def _fold_dwdp_size(facts: dict[str, Any], where: dict[str, str]) -> list[Leaf]:
    """``--dwdp-size N`` as SGLang 0.5.23's ``srt/arg_groups/parallel_hook.py:handle_dwdp``
    resolves it, before the CUDA-graph config is parsed: attention DP over N groups (replicas
    reset to 1), a vocabulary-parallel LM head, no MoE all-to-all, and the legacy
    ``--disable-cuda-graph`` switch (so an explicit phase backend still wins). Its refusals
    are rule ``refuse.dwdp-layout``."""
    size = facts.get("dwdp_size")
    if not isinstance(size, int) or size <= 1:
        return []
    said = f"{where.get('dwdp_size', '--dwdp-size')} {size}"
    facts.update(attn_dp_size=size, dp_size=1, enable_dp_lm_head=True, moe_a2a_backend="none")
    for name in ("attn_dp_size", "dp_size", "enable_dp_lm_head", "moe_a2a_backend"):
        where[name] = said
    return [Leaf(key, "disabled", Origin(Layer.LEGACY, said))
            for key in ("decode.backend", "prefill.backend")]


_LEGACY_SWITCHES = ("--disable-cuda-graph", "--enable-breakable-cuda-graph",
                    "--disable-piecewise-cuda-graph", "--enforce-piecewise-cuda-graph")


def _fold_legacy_graph_switches(leaves: list[Leaf], release: str
                                ) -> tuple[list[Leaf], list[DialectDefault]]:
    """The legacy graph switches as SGLang 0.5.13 reads them (``releases.LEGACY_GRAPH_SWITCHES``):
    ``--disable-cuda-graph`` disables the decode graph only; the prefill (piecewise) graph is on
    unless ``--disable-piecewise-cuda-graph``, or whenever ``--enforce-piecewise-cuda-graph``
    (which also exempts it from the auto-disable cascade, so its backend is a locked leaf); its
    runner is breakable with ``--enable-breakable-cuda-graph``, else tc_piecewise. Without
    ``--enforce-piecewise-cuda-graph`` a breakable choice is an unlocked default, which the
    cascade may turn off. Other releases: the leaves as given."""
    from cgconfig.engines.release_change import holds_in
    from cgconfig.engines.sglang.releases import LEGACY_GRAPH_SWITCHES

    if not holds_in(LEGACY_GRAPH_SWITCHES, release):
        return leaves, []
    given = {leaf.origin.source: leaf for leaf in leaves
             if leaf.origin.source in _LEGACY_SWITCHES and leaf.key == "prefill.backend"}
    kept = [leaf for leaf in leaves
            if not (leaf.key == "prefill.backend" and leaf.origin.source in _LEGACY_SWITCHES)]
    if not given:
        return kept, []
    said = f"SGLang {release}"
    backend = "breakable" if "--enable-breakable-cuda-graph" in given else "tc_piecewise"
    if "--enforce-piecewise-cuda-graph" in given:
        origin = given["--enforce-piecewise-cuda-graph"].origin
        return [*kept, Leaf("prefill.backend", backend, origin)], []
    if "--disable-piecewise-cuda-graph" in given:
        return [*kept, Leaf("prefill.backend", "disabled",
                            given["--disable-piecewise-cuda-graph"].origin)], []
    if "--enable-breakable-cuda-graph" in given:
        return kept, [DialectDefault(
            "prefill.backend", "breakable", "--enable-breakable-cuda-graph",
            f"{said} captures the piecewise prefill graph with BreakableCudaGraphRunner; the "
            "switch does not exempt it from the auto-disable cascade")]
    return kept, []  # --disable-cuda-graph alone: the prefill graph keeps its default


def _fold_piecewise_opt_in(enabled: bool, release: str) -> list[Leaf]:
    """``--enable-piecewise-cuda-graph`` in the releases whose piecewise prefill graph is
    opt-in (``releases.PREFILL_OPT_IN``: SGLang 0.5.8): the prefill graph is ``tc_piecewise``
    (``ModelRunner.init_piecewise_cuda_graphs``' torch.compile ``PiecewiseCudaGraphRunner``, the
    only prefill runner of that release), as given; without it the platform default
    (``flag_defaults.platform_defaults``) keeps prefill disabled. Other releases: nothing (0.5.13
    reads the flag as a ``DeprecatedAction`` that only warns)."""
    from cgconfig.engines.release_change import holds_in
    from cgconfig.engines.sglang.releases import PREFILL_OPT_IN

    if not enabled or not holds_in(PREFILL_OPT_IN, release):
        return []
    return [Leaf("prefill.backend", "tc_piecewise",
                 Origin(Layer.CONVENIENCE, "--enable-piecewise-cuda-graph"))]


def _fold_pd_prefill_disable(facts: dict[str, Any], where: dict[str, str],
                             release: str, piecewise_off: bool, enforced: bool,
                             enabled: bool = False) -> list[Leaf]:
    """A PD prefill instance before SGLang 0.5.16 (``releases.PD_PREFILL_LEGACY_DISABLE``):
    ``pd_disaggregation_hook.handle_pd_disaggregation`` sets the legacy ``disable_cuda_graph``
    switch, which ``ServerArgs._parse_cuda_graph_config`` reads at the legacy layer (both
    phases disabled and locked; an explicit phase backend still wins). SGLang 0.5.12 sets it
    only when ``piecewise_off`` (``--disable-piecewise-cuda-graph`` given), decode only; 0.5.10
    unless ``enforced`` (``--enforce-piecewise-cuda-graph`` given), decode only; 0.5.8 unless
    ``enabled`` (``--enable-piecewise-cuda-graph`` given), decode only."""
    if facts.get("disaggregation_mode") != "prefill":
        return []  # before the imports: every line passes here, few are PD prefill lines
    from cgconfig.engines.release_change import value_at
    from cgconfig.engines.sglang.releases import PD_PREFILL_LEGACY_DISABLE

    when = value_at(PD_PREFILL_LEGACY_DISABLE, release)
    if when is None or (when == "when-piecewise-disabled" and not piecewise_off) or (
            when == "unless-piecewise-enforced" and enforced) or (
            when == "unless-piecewise-enabled" and enabled):
        return []
    said = (f"{where.get('disaggregation_mode', '--disaggregation-mode')} prefill "
            f"(SGLang {release} sets disable_cuda_graph)")
    keys = ("decode.backend",) if when != "always" else (
        "decode.backend", "prefill.backend")
    return [Leaf(key, "disabled", Origin(Layer.LEGACY, said)) for key in keys]


def line_source(part: Part, *, entry_point: bool, engine: str, allow_positionals: bool = False,
                ignore_unknown: bool | None = None) -> SglangArgv:
    """The plug-in part ``line_source``: the words of a line no flag table claimed (SGLang's
    flags and cgconfig's own), read by SGLang's parser rules on every line; ``engine`` is the
    line's engine (its entry point's, else its dialect)."""
    return SglangArgv(part.tokens, allow_positionals=allow_positionals,
                      ignore_unknown=ignore_unknown, engine=engine if entry_point else "sglang",
                      dialect=engine, args=part.args)


def group_args(tokens: list[str], engine: str, release: str,
               positions: list[int] | None) -> list[Arg]:
    """The plug-in part ``group_args``: the host's words grouped into runs by ``engine`` at
    ``release`` (:func:`cgconfig.engines.sglang.argv.sglang_args`)."""
    return sglang_args(tokens, engine, release, positions)
