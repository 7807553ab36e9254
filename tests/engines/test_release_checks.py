"""Start-up refusals of some SGLang releases for inputs cgconfig does not model (#31): each
holds in its releases only, named with the release the line is answered for."""

from __future__ import annotations

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError

SKIP_SYNC = ["--speculative-skip-dp-mlp-sync"]
#: A topology, page size and backend ``kv_shard_hook`` shards (an MLA model over TP 2, fa3):
#: rule ``refuse.kv-sharding-topology``'s passing example.
SHARDABLE = ["--use-mla", "--tp-size", "2", "--page-size", "64", "--attention-backend", "fa3"]


def test_skip_dp_mlp_sync_needs_eagle_in_the_releases_that_have_it() -> None:
    """SGLang 0.5.22 ``speculative_hook.handle_speculative_decoding`` asserts EAGLE."""
    with pytest.raises(CgConfigError, match=r"SGLang 0\.5\.22 refuses it"):
        resolve_args(["--engine-version", "sglang==0.5.22", *SKIP_SYNC])
    plan = resolve_args(["--engine-version", "sglang==0.5.19", "--speculative-algorithm",
                         "EAGLE", "--speculative-draft-model-path", "d", *SKIP_SYNC])
    assert SKIP_SYNC[0] in plan.ignored_args


def test_kv_cache_sharding_is_for_prefill_workers_from_0_5_22() -> None:
    """SGLang 0.5.22 ``kv_shard_hook``: ``--enable-kv-cache-sharding`` off a prefill worker."""
    with pytest.raises(CgConfigError, match="only supported on PD prefill workers"):
        resolve_args(["--engine-version", "sglang==0.5.23", "--enable-kv-cache-sharding"])
    plan = resolve_args(["--engine-version", "sglang==0.5.22", "--enable-kv-cache-sharding",
                         "--disaggregation-mode", "prefill", "--disable-radix-cache", *SHARDABLE])
    assert "--enable-kv-cache-sharding" in plan.ignored_args


def test_kv_cache_sharding_needs_the_python_tree_core_in_0_5_22() -> None:
    """SGLang 0.5.22 ``kv_shard_hook``: the radix tree core defaults to rust there, which
    sharded KV refuses unless the radix cache is off; 0.5.23 defaults it to python."""
    line = ["--enable-kv-cache-sharding", "--disaggregation-mode", "prefill"]
    with pytest.raises(CgConfigError, match=r"SGLang 0\.5\.22 refuses it: .*UnifiedTreeCore"):
        resolve_args(["--engine-version", "sglang==0.5.22", *line])
    resolve_args(["--engine-version", "sglang==0.5.22", *line, "--disable-radix-cache", *SHARDABLE])


@pytest.mark.parametrize("key", ["max_seq_len", "max_context_size"])
def test_prefill_config_keys_new_in_0_5_21(key: str) -> None:
    """``ALLOWED_KEYS_PER_PHASE`` of 0.5.20 lacks them: its argparse refuses the document."""
    document = f'{{"prefill":{{"{key}":4096}}}}'
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["--engine-version", "sglang==0.5.20", "--cuda-graph-config", document])
    assert f"unknown key '{key}'" in str(raised.value) and "SGLang 0.5.20" in str(raised.value)
    resolve_args(["--engine-version", "sglang==0.5.21", "--cuda-graph-config", document])


def test_every_cuda_graph_config_is_checked_though_the_last_is_kept() -> None:
    """argparse converts each occurrence: a malformed first document is refused."""
    with pytest.raises(CgConfigError):
        resolve_args(["--cuda-graph-config", "{not json", "--cuda-graph-config", "{}"])


@pytest.mark.parametrize(("flag", "release"), [("--cuda-graph-tc-compiler", "0.5.21"),
                                               ("--piecewise-cuda-graph-compiler", "0.5.19")])
def test_a_tc_compiler_flag_is_read_by_a_release_that_has_it(flag: str, release: str) -> None:
    """The tc_piecewise compiler flags exist up to 0.5.21 (``--cuda-graph-tc-compiler``) and
    in 0.5.19 (``--piecewise-cuda-graph-compiler``): those releases accept them."""
    plan = resolve_args(["--engine-version", f"sglang=={release}", flag, "eager"])
    assert flag in plan.ignored_args
    with pytest.raises(CgConfigError, match="was removed"):
        resolve_args(["--engine-version", "sglang==0.5.22", flag, "eager"])
