"""Each non-SGLang dialect's flag table: what the splitter carves out of a command line.

Kept apart from the dialects' sources so that splitting an SGLang line imports none of them.
The per-engine flag tables (every upstream flag as data) plug in here.
"""

from __future__ import annotations

from functools import cache

from cgconfig.sources.split import Arity, DialectFlags

#: The vLLM dialect's flags and their arity; ``-cc.KEY=VALUE`` spellings take one value.
VLLM_FLAGS = DialectFlags("vllm", {
    "--compilation-config": 1, "-cc": 1, "--enforce-eager": 0,
    "--max-num-seqs": 1, "--max-num-batched-tokens": 1,
    "--num-speculative-tokens": 1, "--speculative-config": 1,
    "--cudagraph-capture-sizes": "+", "--max-cudagraph-capture-size": 1,
    "--cudagraph-support": 1, "--vllm-attention-backend": 1,
}, prefixes=("-cc.", "--compilation-config.", "--speculative-config."))

#: Flags that name a TensorRT-LLM options file.
TRTLLM_FLAGS = DialectFlags("trtllm", {"--extra-llm-api-options": 1,
                                       "--extra_llm_api_options": 1, "--trtllm-options": 1})


def _arity(nargs: int | str | None, takes_value: bool) -> Arity:
    """The splitter's arity for an argparse/click ``nargs``."""
    if not takes_value:
        return 0
    if nargs in ("*", "+"):
        return "+"
    return nargs if isinstance(nargs, int) else 1


@cache
def engine_flags(engine: str) -> DialectFlags:
    """Every flag of ``engine``'s own table (``vllm serve``, trtllm-serve), owned by
    ``<engine>_engine``: on a line whose entry point names the engine, these tokens are the
    engine's, read by no dialect source (listed as ignored), except where the dialect's own
    table claims them first. Dotted forms of vLLM's JSON flags (``--speculative-config.x``)
    are claimed by prefix."""
    from cgconfig.engines.table import load_table  # only an entry-point line needs the tables

    table = load_table(engine)
    flags = {option: _arity(flag.nargs, flag.takes_value)
             for flag in table.flags for option in flag.options}
    prefixes: tuple[str, ...] = ()
    if table.parser.get("dotted_json"):  # FlexibleArgumentParser takes --flag.key for any flag
        prefixes = tuple(f"{o}." for f in table.flags if f.takes_value for o in f.options)
    return DialectFlags(f"{engine}_engine", flags, prefixes)


#: Flags a dialect's source reads only on a line with an entry point (trtllm-serve's own
#: ``--config`` names the same options file as ``--extra_llm_api_options``; its max batch
#: size and token budget bound the captured list; ``--backend`` picks the runtime).
ENTRY_ONLY_FLAGS: dict[str, dict[str, Arity]] = {
    "trtllm": {"--config": 1, "--max_batch_size": 1, "--max_num_tokens": 1, "--backend": 1}}
