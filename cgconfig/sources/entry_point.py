"""The entry point's own input: the model it serves and the engine flags no dialect source reads.

On ``vllm serve MODEL ...`` / ``trtllm-serve MODEL ...`` the model positional (or vLLM's
``--model``) is the deployment's ``model_path`` fact, recorded with where it was written (the
``model`` reader takes the model's ``config.json`` from it). Every other engine flag the
engine's table claimed is checked as the engine's parser would (values, choices) and listed
under ignored args. Words before the entry point that are not cgconfig's (a ``docker run``
wrapper) are named in one note.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cgconfig.errors import InputError
from cgconfig.fields.values import parse_int
from cgconfig.limits import short
from cgconfig.line.entry import EntryPoint
from cgconfig.line.flag_values import check_values, lookup_option, min_values
from cgconfig.line.split import Arg
from cgconfig.line.table import load_table
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.contribution import Contribution

#: Engine flags (``dest``) that name the model, as the positional does.
_MODEL_DESTS = ("model", "model_tag")
#: Engine flags (``dest``, same in ``vllm serve`` 0.33.0 and ``trtllm-serve``) that are a
#: deployment fact cgconfig shows and its rules read: the engine's parallel layout.
PARALLEL_FACTS = {"tensor_parallel_size": "tp_size", "pipeline_parallel_size": "pp_size"}
#: vLLM 0.33.0 attention backends (``v1/attention/backends/registry.py:AttentionBackendEnum``)
#: that exist only in its ROCm build: a line naming one was written for ROCm.
VLLM_ROCM_BACKEND_PREFIX = "ROCM_"


@dataclass
class LaunchLine:
    """What an entry-point line says besides cgconfig's flags and the dialect's modelled ones."""

    entry: EntryPoint
    model: str | None
    """The model positional, if the line has one."""
    known: list[Arg] = field(default_factory=list)
    """The engine's flags that the dialect's source does not read, with their values (the
    splitter's runs)."""
    wrapper: list[str] = field(default_factory=list)

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """The model fact, the parallel layout, the platform a ROCm-only vLLM backend names,
        the ignored engine flags (values checked), a wrapper note."""
        device_given = "device" in so_far.facts
        chosen = so_far.engine_version
        table = load_table(self.entry.dialect, chosen.version if chosen is not None
                           and chosen.engine == self.entry.dialect else None)
        out = Contribution()
        if self.model is not None:
            out.facts["model_path"] = self.model
            out.fact_sources["model_path"] = f"{self.entry.program} MODEL"
        for arg in self.known:
            name, values = arg.name, arg.given
            found = lookup_option(table, name)
            if found is not None and found[0].status == "modelled":
                # the dialect's source reads it
                out.engine_args.append((found[0].dest, name, [found[1]] if found[1] else values))
            elif found is not None and found[0].graph_effect and found[0].dest not in (
                    *PARALLEL_FACTS, *_MODEL_DESTS):
                # Not "no effect on CUDA graphs": the engine reads it for them (its table says
                # where); cgconfig does not model it, so the plan may differ.
                out.notes.append(f"not modelled: {name} changes {table.label}'s CUDA graphs "
                                 f"({found[0].note or 'see its table entry'}); the plan does "
                                 "not account for it")
            elif found is None or found[0].dest not in (*PARALLEL_FACTS, *_MODEL_DESTS):
                out.ignored.append(name)
            if found is None:  # a dotted JSON key (--speculative-config.method): vLLM merges it
                continue
            flag = found[0]
            if flag.takes_value and len(values) < min_values(flag.nargs):
                raise InputError(f"{short(name)} expects a value ({table.label})", where=short(name),
                                 allowed=flag.choices)
            check_values(table, flag, values, short(name))
            if flag.dest in _MODEL_DESTS and values:
                out.facts["model_path"] = values[-1]
                out.fact_sources["model_path"] = name
            elif flag.dest in PARALLEL_FACTS and values:
                fact = PARALLEL_FACTS[flag.dest]
                out.facts[fact] = parse_int(values[-1], name)
                out.fact_sources[fact] = name
            elif (self.entry.dialect == "vllm" and flag.dest == "attention_backend" and values
                  and values[-1].startswith(VLLM_ROCM_BACKEND_PREFIX) and not device_given):
                # Gathered before the machine source, which then probes rocm-smi.
                out.facts["device"] = "hip"
                out.fact_sources["device"] = (f"inferred from {name} {values[-1]} "
                                              f"(a ROCm-only backend of {table.label})")
        if self.wrapper:
            shown = " ".join(short(w) for w in self.wrapper[:6])
            read = (" except the container's environment (-e/--env), which the engine sees"
                    if not self.entry.inherit and (self.entry.passed or any(
                        w.startswith(("-e", "--env")) for w in self.wrapper)) else "")
            out.notes.append(f"not read: the words before {self.entry.program} ({shown}"
                             f"{' …' if len(self.wrapper) > 6 else ''}){read}")
        return out
