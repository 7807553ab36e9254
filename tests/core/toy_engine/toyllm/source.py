"""ToyLLM's words of a line (the part ``line_source``): its largest batch, default 8."""

from __future__ import annotations

from dataclasses import dataclass

from cgconfig.errors import InputError
from cgconfig.line.split import Part
from cgconfig.provenance import Layer, Leaf, Origin
from cgconfig.resolve.request import DialectDefault, ResolveRequest
from cgconfig.sources.contribution import Contribution

DEFAULT_MAX_BATCH = 8


def sizes_for(max_batch: int) -> list[int]:
    """1, 2, 4 ... up to ``max_batch``."""
    out, size = [], 1
    while size <= max_batch:
        out.append(size)
        size *= 2
    return out


@dataclass
class ToySource:
    part: Part

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        del so_far
        out = Contribution(dialect="toyllm")
        for arg in self.part.args:
            if not arg.given or not arg.given[0].isdigit() or int(arg.given[0]) < 1:
                raise InputError(f"{arg.name} expects a positive int", where=arg.name)
            out.leaves.append(Leaf("decode.bs", sizes_for(int(arg.given[0])),
                                   Origin(Layer.CONFIG, arg.name)))
        if not out.leaves:
            out.defaults.append(DialectDefault("decode.bs", sizes_for(DEFAULT_MAX_BATCH),
                                               "ToyLLM default", "1, 2, 4, 8"))
        out.defaults.append(DialectDefault("prefill.backend", "disabled", "ToyLLM default",
                                           "ToyLLM captures no prefill graphs"))
        return out


def line_source(part: Part, **_: object) -> ToySource:
    return ToySource(part)


group_args = None
