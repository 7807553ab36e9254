"""What SGLang 0.5.17 and 0.5.18 (the ``server_args.py`` ``ServerArgs.__post_init__`` era before
0.5.19's ``arg_groups`` refactor) do differently in the steps cgconfig runs itself, as rows of
the one release-change format (:mod:`cgconfig.engines.release_change`).

Their refusals and downgrades are versioned rules (``rules/packs/sglang/06-sglang-releases.yaml``,
``breakable.pipeline-parallel``'s ``versions:``); this module holds the behaviour the steps
ask. Stdlib only.
"""

from __future__ import annotations

from cgconfig.engines.release_change import ReleaseChange

#: Muse Glimmer's prefill max_bs default of 512, set as a flag before parsing
#: (``flag_defaults.engine_flag_leaves``): SGLang 0.5.17 has no such default (its
#: ``server_args.py`` has no ``apply_muse_glimmer_prefill_cuda_graph_max_bs_default``), so the
#: memory tier's prefill max_bs stands.
MUSE_GLIMMER_PREFILL_DEFAULT: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.18", None, "Muse Glimmer models get --cuda-graph-max-bs-prefill 512 "
                  "before parsing",
                  "python/sglang/srt/server_args.py:"
                  "apply_muse_glimmer_prefill_cuda_graph_max_bs_default (SGLang 0.5.18)"),
)
