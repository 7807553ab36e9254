"""The model's ``config.json`` as deployment facts, each with the line it came from.

When the model path (``--model-path``; vLLM's and trtllm-serve's positional model) is a local
folder or is in the Hugging Face cache (:mod:`cgconfig.hf_cache`), its ``config.json`` gives
the architecture (``architectures[0]``), and from it and the config's keys what SGLang 0.5.23
derives (:mod:`cgconfig.model_archs`): MLA, multimodal, the context length, the KV heads and
the vision encoder's size. ``--json-model-override-args`` is merged over the file first, as
SGLang's ``utils/hf_transformers/config.py:get_config`` does. Facts given by a flag or a
deployment file win over all of it: this source only fills gaps. This is the one reading of
the model's config: every consumer (the rules, the attention-backend choice, the memory
heuristic) reads these facts.

The file is read within the document limits (:mod:`cgconfig.docio`): a regular file, at most
:data:`~cgconfig.limits.MAX_FILE_BYTES`, nested at most
:data:`~cgconfig.limits.MAX_NESTING_DEPTH` deep; a malformed one is one error line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from cgconfig import model_archs
from cgconfig.errors import InputError
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.contribution import Contribution

OVERRIDE_FLAG = "--json-model-override-args"
#: The facts this source may fill.
MODEL_FACTS = ("model_arch", "use_mla", "is_multimodal", "model_context_length",
               *model_archs.SHAPE_KEYS)

_JSON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\]:]')


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The 1-based line of every object key in JSON text, by its path of keys
    (``("text_config", "kv_lora_rank")``); keys inside arrays are left out."""
    import json

    lines: dict[tuple[str, ...], int] = {}
    stack: list[list[Any]] = []  # [kind, current key] per open container
    last: tuple[str, int] | None = None
    line, seen = 1, 0
    for match in _JSON_TOKEN.finditer(text):
        token, start = match.group(), match.start()
        if token == ":" and last is not None and stack and stack[-1][0] == "{":
            key, at = last
            line += text.count("\n", seen, at)
            seen = at
            try:
                stack[-1][1] = json.loads(key)
            except ValueError:
                stack[-1][1] = None
            if all(kind == "{" and name is not None for kind, name in stack):
                # the last one wins, as json.loads (and the engine) reads a repeated key
                lines[tuple(name for _, name in stack)] = line
        last = (token, start) if token.startswith('"') else None
        if token in "{[":
            stack.append([token, None])
        elif token in "}]" and stack:
            stack.pop()
    return lines


class ModelConfig(NamedTuple):
    """One model's merged config: the data, where each key came from, and the file."""

    data: dict[str, Any]
    where: dict[str, str]
    """Top-level key → ``path:line`` or the override flag."""
    shown: str | None
    """The ``config.json`` path as the plan shows it (``None``: no file was read)."""

    def source_of(self, *keys: str) -> str:
        """Where the first of ``keys`` present came from."""
        for key in keys:
            if key in self.where:
                return self.where[key]
        return self.shown or OVERRIDE_FLAG


#: Keys transformers' config classes type as integers (``PretrainedConfig`` subclasses are
#: strict dataclasses in the transformers SGLang 0.5.23 pins): NaN or Infinity there is
#: refused by the engine (``StrictDataclassFieldValidationError``), anywhere else it is read.
INT_CONFIG_KEYS = frozenset((
    "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
    "num_attention_heads", "num_key_value_heads", "max_position_embeddings", "head_dim",
    "moe_intermediate_size", "shared_expert_intermediate_size", "num_experts",
    "num_experts_per_tok", "n_routed_experts", "n_shared_experts", "kv_lora_rank",
    "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
    "first_k_dense_replace", "n_group", "topk_group", "patch_size", "spatial_merge_size",
    "temporal_patch_size", "in_channels", "num_position_embeddings", "depth", "num_heads",
    "out_hidden_size", "image_size"))


def _refuse_non_finite_ints(data: dict[str, Any], shown: str,
                            lines: dict[tuple[str, ...], int]) -> None:
    """A NaN or Infinity at an integer key of the config, its ``text_config`` or, in a
    composite (vision-language) config, its ``vision_config`` is the engine's refusal, named
    with its line; a text model's stray ``vision_config`` is not typed, so it is read."""
    import math

    subs = ("text_config", "vision_config") if isinstance(data.get("text_config"), dict) \
        else ("text_config",)
    places = [((), data)] + [((k,), data[k]) for k in subs if isinstance(data.get(k), dict)]
    for path, body in places:
        for key, value in body.items():
            if key in INT_CONFIG_KEYS and isinstance(value, float) and not math.isfinite(value):
                at = lines.get((*path, key))
                raise InputError(
                    f"{'.'.join((*path, key))} is {value}: transformers' config types it as an "
                    "integer, so the engine refuses this config.json", where=f"{shown}:{at}"
                    if at else shown, hint="give an integer (a context length, a head count ...)")


def read_config(path_text: str) -> ModelConfig:
    """A ``config.json`` read within the document limits, with each key's line."""
    from cgconfig.docio import display_name, load_json_text, read_text_file

    shown = display_name(path_text)
    text = read_text_file(path_text, where=shown)
    # SGLang reads config.json with transformers' json.load, which takes NaN and Infinity; a
    # value cgconfig reads is checked where it is read (a non-finite context length is refused).
    data = load_json_text(text, shown, non_finite=True)
    if not isinstance(data, dict):
        raise InputError(f"a model config must be a JSON object, not {type(data).__name__}",
                         where=shown)
    lines = key_lines(text)
    _refuse_non_finite_ints(data, shown, lines)
    where = {key: f"{shown}:{lines[(key,)]}" if (key,) in lines else shown for key in data}
    for key, sub in data.items():
        if isinstance(sub, dict):
            where.update({f"{key}.{k}": f"{shown}:{lines[(key, k)]}"
                          for k in sub if (key, k) in lines})
    return ModelConfig(data, where, shown)


def apply_overrides(config: ModelConfig, raw: str) -> ModelConfig:
    """``--json-model-override-args`` over the file: top-level keys replace, a dict over a dict
    is merged one level deep (SGLang 0.5.23 ``utils/hf_transformers/config.py:get_config``)."""
    from cgconfig.docio import load_json_text

    overrides = load_json_text(raw, OVERRIDE_FLAG)
    if not isinstance(overrides, dict):
        raise InputError(f"expected a JSON object, got {type(overrides).__name__}",
                         where=OVERRIDE_FLAG)
    data, where = dict(config.data), dict(config.where)
    for key, value in overrides.items():
        current = data.get(key)
        data[key] = {**current, **value} if isinstance(current, dict) and isinstance(
            value, dict) else value
        where[key] = OVERRIDE_FLAG
        if isinstance(value, dict):
            where.update({f"{key}.{k}": OVERRIDE_FLAG for k in value})
    return ModelConfig(data, where, config.shown)


def architectures(config: ModelConfig) -> list[str]:
    """``architectures`` as a list of names; any other shape is an input error."""
    archs = config.data.get("architectures")
    if archs is None:
        return []
    if not isinstance(archs, list) or not all(isinstance(a, str) and a for a in archs):
        raise InputError("architectures must be a list of names", where=config.source_of(
            "architectures"))
    return list(archs)


def _derived(name: str, reason: tuple[str, str | None] | None, config: ModelConfig,
             arch: str, arch_where: str) -> tuple[bool, str]:
    """A derived boolean fact and its provenance: the deciding key's place and the reason."""
    if reason is None:
        return False, f"{arch_where} ({arch}: not {name})"
    why, key = reason
    if key is None:
        return True, f"{arch_where} ({why})"
    text_key = model_archs.text_config(config.data)[1]
    nested = f"{text_key}.{key}" if text_key and key != text_key else key
    return True, f"{config.source_of(nested, key)} ({why})"


def _context_length(config: ModelConfig) -> tuple[int, str]:
    try:
        value, key, how = model_archs.context_length(config.data)
    except ValueError as exc:
        raise InputError(str(exc), where=config.source_of("rope_scaling", "text_config")) from None
    text_key = model_archs.text_config(config.data)[1]
    if key is None:
        return value, f"{config.source_of()} ({how})"
    place = config.source_of(f"{text_key}.{key}", key) if text_key else config.source_of(key)
    return value, place if how == key else f"{place} ({how})"


def model_facts(facts: dict[str, Any], sources: dict[str, str],
                config: ModelConfig) -> tuple[dict[str, Any], dict[str, str]]:
    """The model facts that ``config`` gives and nobody gave explicitly, with provenance."""
    out: dict[str, Any] = {}
    where: dict[str, str] = {}
    archs = architectures(config)
    # Without a config.json the engine's context length is unknown: the override flag alone
    # would fall to SGLang's 2048 default, which the engine (reading the real file) never sees.
    if config.shown is not None and "model_context_length" not in facts:
        out["model_context_length"], where["model_context_length"] = _context_length(config)
    for name, (place, value) in model_archs.shape(config.data).items():
        # Without a file, an override alone cannot say that the model lacks a vision config.
        if name not in facts and (config.shown is not None or name != "no_vision_config"):
            out[name], where[name] = value, config.source_of(place, place.split(".")[0])
    arch = facts.get("model_arch")
    if arch is None and archs:
        arch = out["model_arch"] = archs[0]
        where["model_arch"] = config.source_of("architectures")
    if arch is None:
        return out, where
    arch_where = where.get("model_arch") or sources.get("model_arch", "--model-arch")
    if "model_arch" in facts:
        archs = [str(arch)]  # an explicit architecture replaces the file's list
    if "use_mla" not in facts:
        out["use_mla"], where["use_mla"] = _derived(
            "MLA", model_archs.mla_reason(archs, config.data), config, str(arch), arch_where)
    if "is_multimodal" not in facts:
        out["is_multimodal"], where["is_multimodal"] = _derived(
            "multimodal", model_archs.multimodal_reason(archs, config.data), config,
            str(arch), arch_where)
    return out, where


def lookup_config(model_path: Any) -> str | None:
    """The ``config.json`` path of a model path, when this machine has one."""
    from cgconfig.hf_cache import find_config

    if not isinstance(model_path, str) or not model_path:
        return None
    found = find_config(model_path).path
    return None if found is None else str(found)


def model_config_for(facts: dict[str, Any]) -> ModelConfig | None:
    """The config a resolved plan's ``facts`` name (``model_path``, with
    ``json_model_override_args`` applied), read again for the plan's start-up cost
    (:mod:`cgconfig.cost.shape`); ``None`` when this machine has none."""
    path = lookup_config(facts.get("model_path"))
    if path is None:
        return None
    config = read_config(path)
    raw = facts.get("json_model_override_args")
    if isinstance(raw, str) and raw.strip():
        config = apply_overrides(config, raw)
    return config


@dataclass
class ModelConfigFile:
    """The source: the config of the model the earlier sources named, merged with the
    override flag, as the model facts nobody gave."""

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Read the model's config (if found) and derive the missing model facts."""
        facts = so_far.facts
        if isinstance(facts.get("model_arch"), str):  # typed by the user: a name an engine knows
            from cgconfig.model_arch_names import check_architecture

            check_architecture(facts["model_arch"],
                               so_far.fact_sources.get("model_arch", "--model-arch"))
        if all(name in facts for name in MODEL_FACTS):
            return Contribution()
        path = lookup_config(facts.get("model_path"))
        config = read_config(path) if path else ModelConfig({}, {}, None)
        raw = facts.get("json_model_override_args")
        if isinstance(raw, str) and raw.strip():
            config = apply_overrides(config, raw)
        found, where = model_facts(facts, so_far.fact_sources, config)
        return Contribution(facts=found, fact_sources=where)
