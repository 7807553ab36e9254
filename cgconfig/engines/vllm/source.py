"""The vLLM source: a line's vLLM words, read as vLLM's ``EngineArgs`` and ``VllmConfig`` read
them (:mod:`.vllm_config`), into one contribution (the plug-in part ``line_source``).
"""

from __future__ import annotations

from dataclasses import dataclass

from cgconfig.engines.release_change import holds_in
from cgconfig.engines.vllm.argv import VllmInput, parse_vllm_argv
from cgconfig.engines.vllm.attention import V1_BACKEND_NAMES
from cgconfig.engines.vllm.compile_changes import ALL2ALL_FROM_ENV, ATTENTION_BACKEND_FROM_ENV
from cgconfig.engines.vllm.engine_args import EngineArgs, read_engine_args
from cgconfig.engines.vllm.vllm_config import post_init, speculative
from cgconfig.line.split import Arg, Part
from cgconfig.line.versions import label, newest
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.contribution import Contribution


@dataclass
class VllmArgv:
    """The vLLM dialect's tokens of one command line, with their command-line positions."""

    tokens: list[str]
    positions: list[int]
    whole_engine: bool = False
    """A `vllm serve` line: the worker is the model runner the release picks
    (:func:`cgconfig.engines.vllm.releases.uses_v2_runner`); otherwise the V1 runner that
    ``CompilationConfig`` alone is modelled with."""
    args: list[Arg] | None = None
    """The splitter's runs of the tokens (flag and values)."""

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Parse the tokens once; map them onto cgconfig's keys, vLLM's grid and Stage B."""
        release = answered_release(so_far)
        engine = read_engine_args(so_far.engine_args, release)
        vin = parse_vllm_argv(self.tokens, self.positions, self.args, release=release)
        if vin.attention_backend is None:
            vin.attention_backend = engine.attention_backend
        notes = _environment(vin, engine, so_far)
        speculative(vin, engine, whole_engine=self.whole_engine, facts=so_far.facts)
        out = post_init(vin, so_far.facts, engine, v2_runner=self.whole_engine)
        out.notes += notes
        return out


def _environment(vin: VllmInput, engine: EngineArgs, so_far: ResolveRequest) -> list[str]:
    """The variables the release reads in place of flags it lacks (vLLM 0.10.2
    ``VLLM_ALL2ALL_BACKEND``; ``VLLM_ATTENTION_BACKEND`` before 0.13.0, which 0.10.2's own
    selector reads at step time), and a note where the release takes a flag instead."""
    facts, notes = so_far.facts, list[str]()
    a2a = facts.get("vllm_all2all_backend")
    if isinstance(a2a, str) and holds_in(ALL2ALL_FROM_ENV, engine.release):
        engine.all2all_backend = a2a
    backend = facts.get("vllm_attn_backend")
    if not isinstance(backend, str):
        return notes
    where = so_far.fact_sources.get("vllm_attn_backend", "VLLM_ATTENTION_BACKEND")
    if not holds_in(ATTENTION_BACKEND_FROM_ENV, engine.release):
        notes.append(f"{where}: set, and ignored: cgconfig reads vLLM {engine.release}'s "
                     "attention backend from --attention-backend (the variable is deprecated "
                     f"from {ATTENTION_BACKEND_FROM_ENV[-1].until} and not read by "
                     f"{label('vllm', newest('vllm'))})")
    elif not holds_in(V1_BACKEND_NAMES, engine.release) and vin.attention_backend is None:
        vin.attention_backend = backend  # 0.11.2, 0.12.0: the only way to name it
    return notes


def answered_release(request: ResolveRequest) -> str:
    """The vLLM release the line is answered for: chosen before the line was read
    (``engines/version_source.select``), so a vLLM line always carries it."""
    chosen = request.engine_version
    if chosen is None or chosen.engine != "vllm":
        raise ValueError(f"a vLLM line reached its source answered as {chosen}, not a vLLM "
                         "release")
    return chosen.version


def line_source(part: Part, *, entry_point: bool, **_: object) -> VllmArgv:
    """The plug-in part ``line_source``: a `vllm serve` line as vLLM's whole engine reads it;
    ``--dialect vllm`` alone models ``CompilationConfig`` with the V1 runner."""
    return VllmArgv(part.tokens, part.positions, whole_engine=entry_point, args=part.args)


#: The plug-in part ``group_args``: the splitter groups vLLM's words by its table.
group_args = None
