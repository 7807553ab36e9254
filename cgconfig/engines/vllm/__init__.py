"""vLLM as cgconfig reads it: each supported release's ``vllm serve`` flags (``tables/``), the
line's reader (``argv``, ``engine_args``, ``source``), ``VllmConfig``'s resolution in vLLM's
order (``modes``, ``mode_resolution``, ``attention``, ``splitting_ops``, ``sizes``, the worker's
``stage_b``), what moved between releases (``releases``, ``version_flags``), and its log
readers (``log_reader``, ``tune_log``).
"""
