"""The engine plug-ins: one package per engine (``cgconfig/engines/<engine>/``), each listed by
one row of :mod:`cgconfig.line.registry`.

Nothing here but the plug-ins and the release-change format they share
(:mod:`cgconfig.engines.release_change`). The line layer they build on (flag tables, entry
points, tokens, versions, the splitter) is :mod:`cgconfig.line`; the names it exports are also
reachable here, as the engine-table docs named them before the split
(``from cgconfig.engines import load_table``).
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    import cgconfig.line

    return getattr(cgconfig.line, name)
