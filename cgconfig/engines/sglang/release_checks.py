"""Start-up refusals of some SGLang releases for inputs cgconfig reads but does not model.

A rule reads facts and derived values; the inputs here are not facts: an engine flag cgconfig
lists as ignored (``--speculative-skip-dp-mlp-sync``, ``--enable-kv-cache-sharding``) or a key
of a ``--cuda-graph-config`` document that an older release's parser does not know. Each row
names the releases it holds in (``since`` included, ``until`` excluded; ``None``: open), what
the release says, and where. Checked once per line by the SGLang source, with the release the
line is answered for. Stdlib only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from cgconfig.engines.versions import label, version_key
from cgconfig.errors import InputError


class FlagRequirement(NamedTuple):
    """An engine flag a release refuses unless a fact has one of some values."""

    flag: str
    fact: str
    values: tuple[str, ...]
    since: str | None
    until: str | None
    said: str
    """What the release says (``{value}``: the fact's value)."""
    cites: str
    unset: str = "None"
    """How the release prints the fact when nothing set it."""


class FlagCompanion(NamedTuple):
    """An engine flag a release refuses, when a fact has one of some values, unless another
    (ignored) engine flag is on the line too."""

    flag: str
    fact: str
    values: tuple[str, ...]
    unless: str
    since: str | None
    until: str | None
    said: str
    cites: str


class ConfigKeys(NamedTuple):
    """Keys of one ``--cuda-graph-config`` phase that exist only in some releases."""

    phase: str
    keys: tuple[str, ...]
    since: str | None
    until: str | None
    cites: str


FLAG_REQUIREMENTS: tuple[FlagRequirement, ...] = (
    FlagRequirement(
        "--speculative-skip-dp-mlp-sync", "speculative_algorithm", ("EAGLE",), None, "0.5.23",
        "--speculative-skip-dp-mlp-sync is only supported with speculative_algorithm == EAGLE, "
        "got {value}",
        "python/sglang/srt/arg_groups/speculative_hook.py:handle_speculative_decoding"),
    FlagRequirement(
        "--enable-kv-cache-sharding", "disaggregation_mode", ("prefill",), "0.5.22", None,
        "--enable-kv-cache-sharding is only supported on PD prefill workers (got "
        "--disaggregation-mode {value}): a rank's pool holds only its stripe of every cached "
        "page, which is incompatible with local decode",
        "python/sglang/srt/arg_groups/kv_shard_hook.py", unset="null"),
)

FLAG_COMPANIONS: tuple[FlagCompanion, ...] = (
    # 0.5.22 reads SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND with its default 'rust' (0.5.23 sets
    # 'python' for KV sharding when the variable is unset); cgconfig reads no such variable,
    # so a line that sets it to python is refused here although 0.5.22 accepts it.
    FlagCompanion(
        "--enable-kv-cache-sharding", "disaggregation_mode", ("prefill",), "--disable-radix-cache",
        "0.5.22", "0.5.23",
        "--enable-kv-cache-sharding requires the Python UnifiedTreeCore: "
        "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND='rust' (its default) is not supported for "
        "sharded KV",
        "python/sglang/srt/arg_groups/kv_shard_hook.py:handle_kv_cache_sharding"),
)

CONFIG_KEYS: tuple[ConfigKeys, ...] = (
    ConfigKeys("prefill", ("max_context_size", "max_seq_len"), "0.5.21", None,
               "python/sglang/srt/model_executor/cuda_graph_config.py:ALLOWED_KEYS_PER_PHASE"),
)


def _holds(since: str | None, until: str | None, release: str) -> bool:
    key = version_key(release) or ()
    return ((since is None or key >= (version_key(since) or ()))
            and (until is None or key < (version_key(until) or ())))


def check_release_inputs(release: str, ignored: Iterable[str], facts: Mapping[str, Any],
                         config_keys: Iterable[tuple[str, str]]) -> None:
    """Raise :class:`InputError` for the first input SGLang ``release`` refuses at start-up:
    an ``ignored`` engine flag whose requirement on ``facts`` fails, or a ``(key, where)``
    of a ``--cuda-graph-config`` document the release's parser does not know."""
    shown = label("sglang", release)
    given = set(ignored)
    for row in FLAG_REQUIREMENTS:
        if row.flag in given and _holds(row.since, row.until, release):
            value = facts.get(row.fact)
            if value not in row.values:
                said = row.said.format(value=row.unset if value is None else value)
                raise InputError(f"{shown} refuses it: {said}",
                                 where=row.flag, hint=f"{shown} {row.cites}")
    for companion in FLAG_COMPANIONS:
        if companion.flag in given and companion.unless not in given \
                and facts.get(companion.fact) in companion.values \
                and _holds(companion.since, companion.until, release):
            raise InputError(f"{shown} refuses it: {companion.said}", where=companion.flag,
                             hint=f"add {companion.unless}, or set "
                                  f"SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND=python ({shown} "
                                  f"{companion.cites})")
    for key, where in config_keys:
        phase, _, name = key.partition(".")
        for keys in CONFIG_KEYS:
            if keys.phase == phase and name in keys.keys \
                    and not _holds(keys.since, keys.until, release):
                raise InputError(
                    f"{shown}'s parser refuses it: --cuda-graph-config['{phase}']: unknown key "
                    f"'{name}'", where=where,
                    hint=f"the key is not in {shown} {keys.cites}; drop it, or name another "
                         f"release with --engine-version")
