"""production-stack Helm values: each ``servingEngineSpec.modelSpec[]`` as the vLLM command
the chart's template renders (``production-stack-chart.json`` holds its key → flag mapping)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from cgconfig.files.container import Document, container_env
from cgconfig.files.context import Context
from cgconfig.files.record import Launch
from cgconfig.files.script import launch_of_words
from cgconfig.files.shell import Word


@cache
def chart() -> dict[str, Any]:
    """The shipped description of the chart's vllm container command."""
    text = resources.files("cgconfig.files").joinpath("production-stack-chart.json") \
        .read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _text(value: Any) -> str:
    """A value as Helm's ``quote`` renders it (true → "true", 0.9 → "0.9")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _flags(entries: list[dict[str, str]], block: dict[str, Any], doc: Document,
           at: tuple[Any, ...]) -> list[Word]:
    out: list[Word] = []
    for entry in entries:
        key, flag, how = entry["key"], entry["flag"], entry["how"]
        line = doc.line((*at, key)) if key in block else doc.line(at)
        value = block.get(key)
        if how == "value" and key in block:
            out += [Word(flag, line), Word(_text(value), line)]
        elif how == "switch_true" and value:
            out.append(Word(flag, line))
        elif (how == "switch_both" and key in block) or how == "switch_always":
            out.append(Word(flag if value else "--no-" + flag[2:], line))
    return out


def production_stack(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """One launch per model of the chart's values."""
    spec = chart()
    engine = doc.data["servingEngineSpec"]
    port = _text(engine.get("containerPort", spec["default_port"]))
    models = engine.get("modelSpec")
    out: list[Launch] = []
    for i, model in enumerate(models if isinstance(models, list) else []):
        if not isinstance(model, dict):
            continue
        at: tuple[Any, ...] = ("servingEngineSpec", "modelSpec", i)
        repository, tag = model.get("repository"), model.get("tag")
        line = doc.line((*at, "modelURL"))
        program = spec["program_by_repository"].get(repository, spec["program"])
        words = [Word(w, line) for w in program]
        words += [Word(_text(model.get("modelURL", "")), line), Word("--host", line),
                  Word("0.0.0.0", line), Word("--port", line), Word(port, line)]
        words += _flags(spec["model_spec"], model, doc, at)
        config = model.get("vllmConfig")
        env: dict[str, str] = {}
        if isinstance(config, dict):
            words += _flags(spec["vllm_config"], config, doc, (*at, "vllmConfig"))
            extra = config.get("extraArgs")
            for j, arg in enumerate(extra if isinstance(extra, list) else []):
                words.append(Word(_text(arg), doc.line((*at, "vllmConfig", "extraArgs", j))))
            if _text(config.get("v0")) == "1":
                env["VLLM_USE_V1"] = "0"  # the template sets it for v0: "1"
        words += _flags(spec["after"], model, doc, at)
        env.update(container_env(doc, engine.get("env"), ("servingEngineSpec", "env")))
        env.update(container_env(doc, model.get("env"), (*at, "env")))
        gpus = model.get("requestGPU")
        image = f"{repository}:{tag}" if repository and tag else None
        context = Context(doc.path, "helm-production-stack", env={**env, **variables},
                          container=_text(model.get("name", i)), image=image,
                          image_line=doc.line((*at, "tag")),
                          gpu_count=gpus if isinstance(gpus, int) and not isinstance(gpus, bool)
                          else None)
        found = launch_of_words(words, context)
        if found is not None:
            out.append(found)
    return out
