"""Start-up refusals of some SGLang releases for inputs cgconfig reads but does not model.

A rule reads facts and derived values; the inputs here are not facts: an engine flag cgconfig
lists as ignored (``--speculative-skip-dp-mlp-sync``, ``--enable-kv-cache-sharding``) or a key
of a ``--cuda-graph-config`` document that an older release's parser does not know. Each row
names the releases it holds in (``since`` included, ``until`` excluded; ``None``: open), where,
and as its value what the release checks and says; the rows are
:class:`~cgconfig.engines.release_change.ReleaseChange` s, the one release-change format. Checked
once per line by the SGLang source, with the release the line is answered for. Stdlib only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from cgconfig.engines.release_change import ReleaseChange, applies
from cgconfig.errors import InputError
from cgconfig.line.versions import label


class FlagRequirement(NamedTuple):
    """An engine flag a release refuses unless a fact has one of some values."""

    flag: str
    """The engine flag (as cgconfig lists it among the ignored ones)."""
    fact: str
    """The fact the release reads."""
    values: tuple[str, ...]
    """The fact's values the release accepts the flag with."""
    said: str
    """What the release says (``{value}``: the fact's value)."""
    unset: str = "None"
    """How the release prints the fact when nothing set it."""


class FlagCompanion(NamedTuple):
    """An engine flag a release refuses, when a fact has one of some values, unless another
    (ignored) engine flag is on the line too."""

    flag: str
    """The engine flag (as cgconfig lists it among the ignored ones)."""
    fact: str
    """The fact the release reads."""
    values: tuple[str, ...]
    """The fact's values the refusal needs."""
    unless: str
    """The engine flag whose presence lifts the refusal."""
    said: str
    """What the release says."""


class ConfigKeys(NamedTuple):
    """Keys of one ``--cuda-graph-config`` phase that exist only in some releases."""

    phase: str
    """The phase (``prefill``, ``decode``)."""
    keys: tuple[str, ...]
    """The keys the releases of the row know."""


#: The releases that refuse a flag unless a fact allows it (each row's value a
#: :class:`FlagRequirement`; the rows of one flag do not overlap).
FLAG_REQUIREMENTS: tuple[ReleaseChange, ...] = (
    ReleaseChange(
        None, "0.5.23", "--speculative-skip-dp-mlp-sync needs EAGLE",
        "python/sglang/srt/arg_groups/speculative_hook.py:handle_speculative_decoding",
        FlagRequirement(
            "--speculative-skip-dp-mlp-sync", "speculative_algorithm", ("EAGLE",),
            "--speculative-skip-dp-mlp-sync is only supported with speculative_algorithm == "
            "EAGLE, got {value}")),
    ReleaseChange(
        "0.5.22", None, "--enable-kv-cache-sharding needs a PD prefill worker",
        "python/sglang/srt/arg_groups/kv_shard_hook.py",
        FlagRequirement(
            "--enable-kv-cache-sharding", "disaggregation_mode", ("prefill",),
            "--enable-kv-cache-sharding is only supported on PD prefill workers (got "
            "--disaggregation-mode {value}): a rank's pool holds only its stripe of every cached "
            "page, which is incompatible with local decode", unset="null")),
)

#: The releases that refuse a flag beside a fact unless a companion flag is given (each row's
#: value a :class:`FlagCompanion`).
FLAG_COMPANIONS: tuple[ReleaseChange, ...] = (
    # 0.5.22 reads SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND with its default 'rust' (0.5.23 sets
    # 'python' for KV sharding when the variable is unset); cgconfig reads no such variable,
    # so a line that sets it to python is refused here although 0.5.22 accepts it.
    ReleaseChange(
        "0.5.22", "0.5.23", "--enable-kv-cache-sharding needs the Python radix tree core",
        "python/sglang/srt/arg_groups/kv_shard_hook.py:handle_kv_cache_sharding",
        FlagCompanion(
            "--enable-kv-cache-sharding", "disaggregation_mode", ("prefill",),
            "--disable-radix-cache",
            "--enable-kv-cache-sharding requires the Python UnifiedTreeCore: "
            "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND='rust' (its default) is not supported for "
            "sharded KV")),
)

#: The releases that know some keys of a ``--cuda-graph-config`` phase (each row's value a
#: :class:`ConfigKeys`); a release outside every row of a key refuses it.
CONFIG_KEYS: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.21", None, "prefill keys max_context_size and max_seq_len",
                  "python/sglang/srt/model_executor/cuda_graph_config.py:ALLOWED_KEYS_PER_PHASE",
                  ConfigKeys("prefill", ("max_context_size", "max_seq_len"))),
)


def check_release_inputs(release: str, ignored: Iterable[str], facts: Mapping[str, Any],
                         config_keys: Iterable[tuple[str, str]]) -> None:
    """Raise :class:`InputError` for the first input SGLang ``release`` refuses at start-up:
    an ``ignored`` engine flag whose requirement on ``facts`` fails, or a ``(key, where)``
    of a ``--cuda-graph-config`` document the release's parser does not know."""
    shown = label("sglang", release)
    given = set(ignored)
    for row in FLAG_REQUIREMENTS:
        need = row.value
        assert isinstance(need, FlagRequirement)
        if need.flag in given and applies(row, release):
            value = facts.get(need.fact)
            if value not in need.values:
                said = need.said.format(value=need.unset if value is None else value)
                raise InputError(f"{shown} refuses it: {said}",
                                 where=need.flag, hint=f"{shown} {row.cites}")
    for row in FLAG_COMPANIONS:
        companion = row.value
        assert isinstance(companion, FlagCompanion)
        if companion.flag in given and companion.unless not in given \
                and facts.get(companion.fact) in companion.values and applies(row, release):
            raise InputError(f"{shown} refuses it: {companion.said}", where=companion.flag,
                             hint=f"add {companion.unless}, or set "
                                  f"SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND=python ({shown} "
                                  f"{row.cites})")
    for key, where in config_keys:
        phase, _, name = key.partition(".")
        for row in CONFIG_KEYS:
            keys = row.value
            assert isinstance(keys, ConfigKeys)
            if keys.phase == phase and name in keys.keys and not applies(row, release):
                raise InputError(
                    f"{shown}'s parser refuses it: --cuda-graph-config['{phase}']: unknown key "
                    f"'{name}'", where=where,
                    hint=f"the key is not in {shown} {row.cites}; drop it, or name another "
                         f"release with --engine-version")
