"""The release is chosen before the line is read, and the line is read with its table (#31):
a flag of the chosen release is that release's, a flag newer than it is refused naming the
release that added it, and every message names the release the line is answered for."""

from __future__ import annotations

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError

#: A draft the flag below needs (SGLang 0.5.22 asserts EAGLE with it).
EAGLE = ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "d"]


def test_a_flag_of_an_older_release_is_read_with_that_release() -> None:
    """``--speculative-skip-dp-mlp-sync`` is a 0.5.22 flag (``arg_groups/fields/spec.py``),
    removed in 0.5.23: on a 0.5.22 line it is SGLang's (no graph effect), not unknown."""
    plan = resolve_args(["--engine-version", "sglang==0.5.22", *EAGLE,
                         "--speculative-skip-dp-mlp-sync"])
    assert "--speculative-skip-dp-mlp-sync" in plan.ignored_args
    with pytest.raises(CgConfigError, match=r"was removed in SGLang 0\.5\.23"):
        resolve_args(["--engine-version", "sglang==0.5.23", "--speculative-skip-dp-mlp-sync"])


def test_a_flag_newer_than_the_release_is_refused_naming_both() -> None:
    """``--enable-hicache`` is new in 0.5.23: SGLang 0.5.22's parser refuses it."""
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["--engine-version", "sglang==0.5.22", "--enable-hicache"])
    assert "is new in SGLang 0.5.23" in str(raised.value)
    assert "SGLang 0.5.22 does not have it" in str(raised.value)
    assert "--enable-hicache" in resolve_args(["--enable-hicache"]).ignored_args


def test_a_rule_refusal_names_the_release_of_the_line() -> None:
    """SGLang 0.5.20 refuses EAGLE with ``--speculative-num-steps`` and no topk too (its
    ``_handle_eagle_family`` compares ``None > 1``); the refusal names 0.5.20."""
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["--engine-version", "sglang==0.5.20", "--speculative-algorithm", "EAGLE",
                      "--speculative-num-steps", "3"])
    text = str(raised.value)
    assert "SGLang 0.5.20 refuses this speculative parameter set" in text
    assert "0.5.23" not in text


def test_the_release_of_a_docker_image_reads_the_line() -> None:
    """The image's tag is read from the raw words, before the split: its release's table
    reads the engine's flags (0.5.22's ``--speculative-skip-dp-mlp-sync``)."""
    plan = resolve_args(["docker", "run", "lmsysorg/sglang:v0.5.22", "python3", "-m",
                         "sglang.launch_server", "--model-path", "m", *EAGLE,
                         "--speculative-skip-dp-mlp-sync"])
    assert plan.engine_version is not None and plan.engine_version["version"] == "0.5.22"
    assert "--speculative-skip-dp-mlp-sync" in plan.ignored_args
