"""What vLLM 0.11.2 did differently from 0.12.0 with its compilation config, its ``-O`` flag and
its model runner, as rows of the one release-change format
(:mod:`cgconfig.engines.release_change`), read in the 0.11.2 and 0.12.0 wheels
(``vllm/utils/argparse_utils.py``, ``vllm/config/vllm.py``, ``vllm/config/compilation.py``,
``vllm/v1/worker/gpu_worker.py``); :mod:`.releases` lists them in ``BEHAVIOURS`` with the
others. Standard library only (the start-up path imports it).
"""

from __future__ import annotations

from cgconfig.engines.release_change import ReleaseChange, holds_in

_VLLM_CONFIG = "vllm/config/vllm.py"

# --- vLLM 0.11.2 (issue #37, helper v011): behaviours read in the 0.11.2 and 0.12.0 wheels ---
#: ``-O<n>`` / ``--optimization-level`` is ``VllmConfig.optimization_level`` (-O0 NONE/NONE,
#: -O1 VLLM_COMPILE/PIECEWISE, -O2/-O3 VLLM_COMPILE/FULL_AND_PIECEWISE). Before, ``-O`` is a
#: spelling of ``--compilation-config``: ``FlexibleArgumentParser.parse_args`` rewrites ``-O3``
#: to ``-O.mode=3`` (the compilation mode, 3 = VLLM_COMPILE), and an unset ``cudagraph_mode``
#: is FULL_AND_PIECEWISE under VLLM_COMPILE, NONE under any other mode.
OPTIMIZATION_LEVELS: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.12.0", None, "-O<n> is the optimization level (before: -O is "
                  "--compilation-config, -O<n> its mode key, the default cudagraph_mode "
                  "FULL_AND_PIECEWISE under VLLM_COMPILE, else NONE)",
                  "vllm/utils/argparse_utils.py:FlexibleArgumentParser.parse_args, "
                  f"{_VLLM_CONFIG}:VllmConfig.optimization_level"),
)
#: ``-O.KEY=VALUE`` / ``-O.KEY VALUE`` is a compilation-config key: in 0.12.0
#: ``FlexibleArgumentParser.parse_args`` skips ``-O`` followed by ``.`` when it reads
#: ``-O<n>`` as the level and rewrites ``-O.KEY`` to ``-cc.KEY`` (with a deprecation warning,
#: "will be removed in v0.13.0"); in 0.11.2 ``-O`` is ``--compilation-config`` itself. From
#: 0.13.0 every ``-O<rest>`` is ``--optimization-level <rest>`` (``-O.mode=0`` is refused by
#: ``VllmConfig``: "Input should be 0, 1, 2 or 3"; oracle-measured, tests/fidelity/
#: test_vllm_0_12.py).
DOTTED_O_IS_COMPILATION_CONFIG: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.13.0", "-O.KEY is the compilation-config key KEY (rewritten to "
                  "-cc.KEY; after: -O.KEY is the optimization level '.KEY', refused)",
                  "vllm/utils/argparse_utils.py:FlexibleArgumentParser.parse_args"),
)
#: ``compilation_config.level`` is the deprecated spelling of ``mode``:
#: ``CompilationConfig.__post_init__`` sets ``mode = level`` when ``mode`` is unset (``mode``
#: wins when both are given). The field is in the 0.11.2 … 0.17.1 wheels and gone from 0.18.1
#: (whose ``extra="forbid"`` then refuses the key: "Unexpected keyword argument").
COMPILATION_LEVEL_KEY: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.18.1", "compilation_config.level is mode's deprecated spelling "
                  "(mode = level when mode is unset)",
                  "vllm/config/compilation.py:CompilationConfig.__post_init__"),
)
#: A cudagraph_mode with piecewise graphs without VLLM_COMPILE is refused by the final check
#: of ``VllmConfig.__post_init__`` ("Compilation mode should be CompilationMode.VLLM_COMPILE
#: when cudagraph_mode piecewise cudagraphs is used"); from 0.12.0 it is overridden to NONE.
PIECEWISE_WITHOUT_COMPILE_REFUSED: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.12.0", "a piecewise cudagraph_mode without VLLM_COMPILE is refused",
                  f"{_VLLM_CONFIG}:VllmConfig.__post_init__ (final check of cudagraph mode)"),
)
#: When no capture size is left after the spec-decode rounding, ``[1 + k]`` if it fits under
#: the maximum, else a refusal ("No valid cudagraph sizes after rounding"); before, a warning
#: and the sizes are kept unrounded.
SPEC_ROUNDING_EMPTY_HANDLED: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.12.0", None, "no size left after the spec-decode rounding: [1 + k] or a "
                  "refusal (before: a warning, the sizes kept)",
                  "vllm/config/compilation.py:CompilationConfig."
                  "adjust_cudagraph_sizes_for_spec_decode"),
)
#: ``VLLM_USE_V2_MODEL_RUNNER=1`` builds Model Runner V2 (``v1/worker/gpu/model_runner.py``);
#: 0.11.2 has no such runner and its ``vllm/envs.py`` no such variable (the V1 runner runs).
MODEL_RUNNER_V2_EXISTS: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.12.0", None, "VLLM_USE_V2_MODEL_RUNNER=1 builds Model Runner V2",
                  "vllm/v1/worker/gpu_worker.py:Worker.init_device"),
)
#: The ``pass_config`` key of the attention + quant fusion pass, whose splitting ops
#: ``CompilationConfig.set_splitting_ops_for_attn_fusion`` empties.
ATTN_FUSION_KEY: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.12.0", "pass_config.enable_attn_fusion fuses attention + quant",
                  "vllm/config/compilation.py:PassConfig.enable_attn_fusion",
                  "enable_attn_fusion"),
    ReleaseChange("0.12.0", None, "pass_config.fuse_attn_quant fuses attention + quant",
                  "vllm/config/compilation.py:PassConfig.fuse_attn_quant", "fuse_attn_quant"),
)
# --- end vLLM 0.11.2 ---


def default_mode(release: str, vllm_compile: bool, level_graphs: str) -> str:
    """The cudagraph_mode ``VllmConfig`` gives a line that sets none: the optimization level's
    (``level_graphs``) from 0.12.0; before, FULL_AND_PIECEWISE under VLLM_COMPILE, else NONE."""
    if holds_in(OPTIMIZATION_LEVELS, release):
        return level_graphs
    return "FULL_AND_PIECEWISE" if vllm_compile else "NONE"


def default_mode_why(release: str, mode: str, vllm_compile: bool, level: str) -> str:
    """Why :func:`default_mode` chose ``mode`` (``level``: the optimization level and where it
    was read)."""
    if holds_in(OPTIMIZATION_LEVELS, release):
        return f"vLLM default cudagraph_mode {mode} at optimization level {level}"
    return (f"vLLM {release} default cudagraph_mode {mode} (compilation mode "
            f"{'VLLM_COMPILE' if vllm_compile else 'other than VLLM_COMPILE'}: "
            "FULL_AND_PIECEWISE under VLLM_COMPILE, else NONE; VllmConfig.__post_init__)")


def v2_variable_ignored(release: str) -> str | None:
    """The warning for a ``VLLM_USE_V2_MODEL_RUNNER`` that ``release`` does not read."""
    if holds_in(MODEL_RUNNER_V2_EXISTS, release):
        return None
    return (f"VLLM_USE_V2_MODEL_RUNNER is not read by vLLM {release}: it has no Model Runner V2 "
            "(the V1 runner runs)")
