"""The engine release a file pins through its image and Dynamo's release (issue #33's
hand-check of srt-slurm recipes)."""

from __future__ import annotations

import pytest

from cgconfig.files.context import Context
from cgconfig.files.release import pinned_release


@pytest.mark.parametrize(("image", "release", "expected"), [
    # srtctl pip-installs ai-dynamo==dynamo.version into model.container: the container's
    # SGLang runs (srt-slurm src/srtctl/core/schema.py DynamoConfig._build_install_commands)
    ("lmsysorg/sglang:v0.5.8.post1-cu130", "0.8.0", "sglang==0.5.8.post1"),
    ("lmsysorg/sglang:v0.5.16-cu130", None, "sglang==0.5.16"),
    ("nvcr.io#nvidia/ai-dynamo/sglang-runtime:0.9.1-cuda13", None, "sglang==0.5.8"),
    (None, "0.9.1", "sglang==0.5.8"),  # a cluster alias names no image: Dynamo's matrix
    ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.0-sglang-deepseek-v4-b200-dev.1", "1.2.0",
     None),  # a development build: its engines are not 1.2.0's
    ("lmsysorg/sglang:nightly-dev-20260818-c0b6474b", "1.3.0", None),
])
def test_the_image_the_launch_runs_in_comes_before_dynamos_release(
        image: str | None, release: str | None, expected: str | None) -> None:
    version, _, note = pinned_release(Context("r.yaml", "srt-slurm", image=image,
                                              release=release), "sglang")
    assert version == expected
    assert (note is None) == (expected is not None)
