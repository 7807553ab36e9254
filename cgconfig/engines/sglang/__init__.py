"""SGLang as cgconfig reads it: each supported release's flags (``tables/``), the line's reader,
the resolution steps in SGLang's own order, its emitter, units and log readers.

One module per job, named after the SGLang stage or hook it ports: ``flags``, ``argv``,
``source``, ``engine_flags``, ``version_flags`` (the line and each release's own parser);
``releases`` (what moved between releases); ``stages`` and ``pipeline`` (SGLang's hooks in
order, and its steps among them); ``flag_defaults`` (what SGLang sets before parsing),
``derived``, ``cuda_graph_hook`` (the DeepEP alignment), ``memory_hook`` (the default sizes),
``cuda_graph_runner`` (the capture filter); ``grid`` and ``sizes`` (the grids, memory tiers and
sizing functions they call), ``model_archs`` (its per-architecture tables);
``attention``, ``engine_settings``, ``memory``, ``engine_block`` (the plan's ``engine`` block);
``emit``, ``units``, ``log_reader``, ``tune_log``. SGLang's rule packs are in
``engines/sglang/rules/``.
"""
