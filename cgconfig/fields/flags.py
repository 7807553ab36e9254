"""The SGLang-dialect flag table: every flag of cgconfig's own command line, as data.

The table drives the SGLang source's parser, ``add_arguments`` for launch scripts, deprecation
notes, ``resolve --help``, shell completion and ``docs/migration.md``. A flag is one of:

* ``config``: writes per-phase keys at a precedence layer (legacy switch, off-switch,
  convenience flag, or the ``--cuda-graph-config`` document itself);
* ``option``: writes a graph option (``options.*``);
* ``fact``: a deployment fact, generated from the declarations in ``deployment.py``;
* ``setting``: steers the resolution (strictness, extra rule packs, a deployment file...).

Flags that only the CLI reads (``--output``, ``--emit``...) live in ``cgconfig.cli.options``.
Names, help texts and the deprecated aliases follow SGLang's server arguments.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from cgconfig.fields.table import all_config_keys, fact_fields, spec
from cgconfig.line.registry import names as dialects
from cgconfig.provenance import Layer

FlagKind = Literal["config", "option", "fact", "setting"]
ValueKind = Literal["switch", "int", "int_list", "human_int", "float", "str", "str_list", "choice",
                    "repeat"]

#: Marks a write whose value is the flag's argument (rather than a constant).
ARG = object()


class Flag(NamedTuple):
    """One command-line flag and what it writes."""

    name: str
    kind: FlagKind
    value: ValueKind
    help: str
    writes: tuple[tuple[str, Any], ...] = ()
    """``(dotted key, constant or ARG)`` pairs; facts use ``("facts.<field>", ARG)``."""
    layer: Layer | None = None
    choices: tuple[str, ...] | None = None
    replacement: str | None = None
    """Set on deprecated aliases: the flag to use instead, printed in the deprecation note."""
    aliases: tuple[str, ...] = ()
    metavar: str | None = None

    @property
    def takes_value(self) -> bool:
        """Whether the flag consumes the following token(s)."""
        return self.value != "switch"


def _c(name: str, layer: Layer, value: ValueKind, writes: tuple[tuple[str, Any], ...], help: str,
       replacement: str | None = None, choices: tuple[str, ...] | None = None) -> Flag:
    return Flag(name=name, kind="config", value=value, help=help, writes=writes, layer=layer,
                choices=choices, replacement=replacement)


#: SGLang's value kind for each spec kind (a key's own flag reads its argument this way).
_VALUE_OF_KIND: dict[str, ValueKind] = {"bool": "switch", "choice": "choice", "float": "float",
                                        "int": "int", "int_list": "int_list", "str": "str"}


def _key_flags(key: str) -> tuple[Flag, ...]:
    """The flag a key declares (``FlagSpelling`` in ``config.py``) and its deprecated aliases."""
    field_spec = spec(key)
    spelling = field_spec.flag
    if spelling is None:
        return ()
    value: ValueKind = spelling.value or _VALUE_OF_KIND[field_spec.kind]  # type: ignore[assignment]
    kind: FlagKind = "option" if key.startswith("options.") else "config"
    write = (key, True if value == "switch" else ARG)
    layer = None if kind == "option" else Layer.CONVENIENCE
    main = Flag(spelling.flag, kind, value, spelling.help, writes=(write,), layer=layer,
                choices=field_spec.choices)
    # Deprecated aliases write the same key, exactly as SGLang's alias actions did.
    return (main, *(Flag(alias, kind, value, "Deprecated alias.", writes=(write,), layer=layer,
                         choices=field_spec.choices, replacement=spelling.flag)
                    for alias in spelling.aliases))


_KEY_FLAGS: tuple[Flag, ...] = tuple(f for key in all_config_keys() for f in _key_flags(key))

#: Switches that write constants (old spellings of a backend choice), then every key's own flag
#: and its aliases, then the config document.
CONFIG_FLAGS: tuple[Flag, ...] = (
    _c("--disable-cuda-graph", Layer.LEGACY, "switch",
       (("decode.backend", "disabled"), ("prefill.backend", "disabled")),
       "Old switch: disable CUDA graphs of both phases.",
       replacement="--cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled"),
    _c("--disable-decode-cuda-graph", Layer.OFF_SWITCH, "switch", (("decode.backend", "disabled"),),
       "Disable the decode-phase CUDA graph (same as --cuda-graph-backend-decode disabled)."),
    _c("--disable-prefill-cuda-graph", Layer.OFF_SWITCH, "switch",
       (("prefill.backend", "disabled"),),
       "Disable the prefill-phase CUDA graph (same as --cuda-graph-backend-prefill disabled)."),
    *(f for f in _KEY_FLAGS if f.kind == "config"),
    _c("--enable-breakable-cuda-graph", Layer.CONVENIENCE, "switch",
       (("prefill.backend", "breakable"),), "Deprecated alias.",
       replacement="--cuda-graph-backend-prefill breakable"),
    _c("--disable-piecewise-cuda-graph", Layer.CONVENIENCE, "switch",
       (("prefill.backend", "disabled"),), "Deprecated alias.",
       replacement="--cuda-graph-backend-prefill disabled"),
    # SGLang 0.5.19's alias (``server_args.py``: a DeprecatedStoreConstAction on
    # cuda_graph_backend_prefill); the later releases' tables lack it, so they refuse it.
    _c("--enforce-piecewise-cuda-graph", Layer.CONVENIENCE, "switch",
       (("prefill.backend", "tc_piecewise"),), "Deprecated alias.",
       replacement="--cuda-graph-backend-prefill tc_piecewise"),
    Flag(name="--cuda-graph-config", kind="config", value="str", layer=Layer.CONFIG,
         metavar="JSON|@FILE|FILE",
         help="Per-phase settings as JSON, @file, or a .json/.yaml file; wins over every flag."),
)

OPTION_FLAGS: tuple[Flag, ...] = tuple(f for f in _KEY_FLAGS if f.kind == "option")

#: Flags that existed upstream and are gone: a clear error with the migration, not "unknown".
REMOVED_FLAGS: dict[str, str] = {
    "--enable-piecewise-cuda-graph": "piecewise prefill graphs were removed; use "
    "--cuda-graph-backend-prefill breakable",
    "--cuda-graph-tc-compiler": "tc_compiler was removed together with tc_piecewise; drop the "
    "flag",
    "--piecewise-cuda-graph-compiler": "the deprecated alias of --cuda-graph-tc-compiler was "
    "removed; drop the flag",
}

#: Short SGLang spellings of fact flags.
FACT_ALIASES: dict[str, tuple[str, ...]] = {
    "tp_size": ("--tp", "--tensor-parallel-size"),
    "dp_size": ("--dp", "--data-parallel-size"),
    "pp_size": ("--pp", "--pipeline-parallel-size"),
}

_FACT_HELP_OVERRIDES: dict[str, str] = {"gpu_memory_gib": "GiB of one GPU (default: nvidia-smi)."}


_FACT_VALUE_KINDS: dict[str, ValueKind] = {"bool": "switch", "choice": "choice",
                                            "float": "float", "int": "int", "str": "str"}

#: Facts whose SGLang flag takes several values (``nargs='*'`` in SGLang 0.5.23
#: ``ServerArgs.add_cli_args``): every value is read, joined by spaces into the one fact
#: (``--lora-paths a=/x b=/y``).
MULTI_VALUE_FACTS = ("lora_paths", "lora_target_modules")


def _first_sentence(doc: str) -> str:
    """The first sentence of a field doc; "e.g." and "i.e." do not end a sentence."""
    return re.split(r"(?<!e\.g)(?<!i\.e)\.\s", doc, maxsplit=1)[0].rstrip(".") + "."


def _fact_flag(field: str) -> Flag:
    field_spec = spec(f"facts.{field}")
    choices = field_spec.choices
    value = "str_list" if field in MULTI_VALUE_FACTS else _FACT_VALUE_KINDS[field_spec.kind]
    doc = _FACT_HELP_OVERRIDES.get(field) or _first_sentence(field_spec.doc)
    return Flag(name="--" + field.replace("_", "-"), kind="fact", value=value, help=doc,
                writes=((f"facts.{field}", ARG if value != "switch" else True),),
                choices=choices, aliases=FACT_ALIASES.get(field, ()),
                metavar="VALUE [VALUE ...]" if value == "str_list" else None)


FACT_FLAGS: tuple[Flag, ...] = tuple(_fact_flag(f) for f in fact_fields())

SETTING_FLAGS: tuple[Flag, ...] = (
    Flag("--deployment", "setting", "str", "Deployment facts from a YAML/JSON file (flags win).",
         metavar="FILE"),
    Flag("--strict", "setting", "switch", "A constraint that overrides an explicit key is an error "
         "(exit 3) instead of a warning."),
    Flag("--rules", "setting", "repeat", "Add a rule pack (YAML); may repeat.", metavar="FILE"),
    Flag("--disable-rule", "setting", "repeat", "Switch a policy rule off by id; may repeat.",
         metavar="ID"),
    Flag("--allow-override", "setting", "repeat", "Let constraint ID override explicit keys even "
         "under --strict; may repeat.", metavar="ID"),
    Flag("--apply-advice", "setting", "repeat", "Apply advice rule ID (cgconfig's own judgement, "
         "not the engine's); the plan then differs from the engine's decision; may repeat.",
         metavar="ID"),
    Flag("--ignore-unknown-args", "setting", "switch", "Skip flags cgconfig does not model "
         "(for whole launch lines) instead of failing."),
    Flag("--dialect", "setting", "choice", "Input dialect (default: detected from the flags).",
         choices=dialects()),
)

ALL_FLAGS: tuple[Flag, ...] = CONFIG_FLAGS + OPTION_FLAGS + FACT_FLAGS + SETTING_FLAGS


@lru_cache(maxsize=1)
def flag_index() -> dict[str, Flag]:
    """Every spelling (name and aliases) → its flag."""
    index: dict[str, Flag] = {}
    for flag in ALL_FLAGS:
        for spelling in (flag.name, *flag.aliases):
            index[spelling] = flag
    return index


def known_spellings() -> list[str]:
    """All flag spellings cgconfig knows, removed ones included (SGLang's own flags are in its
    table, ``cgconfig.engines.load_table("sglang")``)."""
    return [*flag_index(), *REMOVED_FLAGS]
