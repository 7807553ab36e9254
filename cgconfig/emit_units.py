"""Units of the emitted sizes: a plan's decode sizes in requests or in tokens.

Kept apart so that each engine's emitter (``cgconfig/engines/<engine>/emit.py``) imports it
without importing the others.
"""

from __future__ import annotations

from cgconfig.errors import InputError
from cgconfig.plan import Plan

__all__ = ["decode_sizes_as"]


def _tokens_per_request(plan: Plan) -> int:
    return int(plan.units["decode"].get("tokens_per_request") or 1)


def decode_sizes_as(plan: Plan, sizes: list[int], unit: str, target: str) -> list[int]:
    """The plan's decode ``sizes`` counted in ``unit`` (``requests`` or ``tokens``).

    Requests become tokens by multiplying with the tokens per request; tokens become requests
    only when every size is a whole number of requests, else an :class:`InputError` naming
    the phase.
    """
    have, width = plan.size_unit("decode"), _tokens_per_request(plan)
    if have == unit or width == 1:
        return list(sizes)
    if unit == "tokens":
        return [size * width for size in sizes]
    odd = [size for size in sizes if size % width]
    if odd:
        raise InputError(
            f"cannot convert the decode phase: its sizes count tokens ({width} per request "
            f"under speculative decoding) and {odd[:5]} are not whole numbers of requests, "
            f"which {target}'s decode sizes count", where=f"--emit {target}",
            hint=f"give decode capture sizes that are multiples of {width}")
    return [size // width for size in sizes]
