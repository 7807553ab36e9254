"""SGLang as cgconfig reads it: each supported release's flags (``tables/``), the line's reader,
the resolution steps in SGLang's own order, its emitter and its log reader.

A module per upstream stage or hook, each named after what it ports: ``argv``/``source`` (the
line), ``releases`` (what moved between releases), ``grid`` and ``sizes`` (the capture-size
grids and the memory hook's sizing), ``sizing`` (the memory and cuda-graph hooks' steps on the
draft), ``attention``/``engine_settings``/``memory``/``engine_block`` (the plan's ``engine``
block), ``version_flags`` (each release's own parser errors), ``log_reader``/``tune_log``.
The rule packs for SGLang live in ``rules/packs/sglang/``.
"""
