"""vLLM as cgconfig reads it: each supported release's ``vllm serve`` flags (``tables/``), the
line's reader (``flags``, ``argv``, ``engine_args``, ``source``, ``version_flags``), vLLM's config
stages in its order (``vllm_config``: ``VllmConfig.__post_init__``; ``modes``,
``mode_resolution``, ``attention``, ``splitting_ops``, ``sizes``; the worker's ``stage_b``), what
moved between releases (``releases``), and its ``pipeline``, ``stages``, ``emit``, ``units``
and log readers (``log_reader``, ``tune_log``).
"""
