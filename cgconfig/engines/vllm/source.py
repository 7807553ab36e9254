"""The vLLM source: a line's vLLM words, read as vLLM's ``EngineArgs`` and ``VllmConfig`` read
them (:mod:`.vllm_config`), into one contribution (the plug-in part ``line_source``).
"""

from __future__ import annotations

from dataclasses import dataclass

from cgconfig.engines.vllm.argv import parse_vllm_argv
from cgconfig.engines.vllm.engine_args import read_engine_args
from cgconfig.engines.vllm.vllm_config import post_init, speculative
from cgconfig.line.split import Arg, Part
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
        speculative(vin, engine, whole_engine=self.whole_engine, facts=so_far.facts)
        return post_init(vin, so_far.facts, engine, v2_runner=self.whole_engine)


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
