"""srt-slurm recipes: ``backend.sglang_config.{prefill,decode,aggregated}`` as the worker
commands srtctl builds (``SGLangProtocol.build_worker_command`` in ishandhanani/srt-slurm
``src/srtctl/backends/sglang.py``): ``python3 -m dynamo.sglang`` (``sglang.launch_server``
with ``frontend.type: sglang``), ``--model-path``, ``--served-model-name``, ``--host``, the
mode's ``--disaggregation-mode``, then the mode's map sorted by key (``true`` → the bare flag,
``false`` and null left out, a list → its values)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cgconfig.errors import InputError
from cgconfig.files.container import Document, get
from cgconfig.files.context import Context
from cgconfig.files.record import Launch
from cgconfig.files.script import launch_of_words
from cgconfig.files.shell import Word

#: Mode → (its block under ``sglang_config``, its environment key, its role).
_MODES = (("prefill", "prefill_environment", "prefill"),
          ("decode", "decode_environment", "decode"),
          ("aggregated", "aggregated_environment", None))


def _map_flags(config: dict[str, Any], doc: Document, at: tuple[Any, ...]) -> list[Word]:
    out: list[Word] = []
    for key in sorted(config, key=str):
        value = config[key]
        flag = "--" + str(key).replace("_", "-")
        line = doc.line((*at, key))
        if isinstance(value, bool):
            if value:
                out.append(Word(flag, line))
        elif isinstance(value, list):
            out += [Word(flag, line), *(Word(str(v), line) for v in value)]
        elif value is not None:
            out += [Word(flag, line), Word(str(value), line)]
    return out


def _gpus(resources: Any, mode: str) -> int | None:
    """GPUs per worker: the mode's nodes × GPUs per node ÷ its workers."""
    per_node = get(resources, "gpus_per_node")
    nodes = get(resources, f"{mode}_nodes")
    workers = get(resources, f"{mode}_workers")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
               for v in (per_node, nodes, workers)):
        return None
    total = int(per_node) * int(nodes)
    return total // int(workers) if total % int(workers) == 0 else None


def srt_slurm(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """One launch per mode the recipe configures."""
    data = doc.data
    backend = data["backend"]
    sglang = backend.get("sglang_config")
    if not isinstance(sglang, dict):
        other = [k for k in backend if k.endswith("_config") and isinstance(backend[k], dict)]
        if other:  # say so: a recipe read as having no launch would pass a check unread
            raise InputError(f"backend.{other[0]}: cgconfig reads only srt-slurm's sglang_config "
                             "(src/srtctl/backends/sglang.py); this recipe's launches are not "
                             "checked", where=f"{doc.path}:{doc.line(('backend', other[0]))}")
        return []
    use_sglang = get(data, "frontend", "type") == "sglang"
    module = "sglang.launch_server" if use_sglang else "dynamo.sglang"
    model = get(data, "model", "path")
    resources = data.get("resources")
    release = get(data, "dynamo", "version")
    image = get(data, "model", "container")  # an image reference, or a cluster's alias for one
    image = str(image) if isinstance(image, str) and ("/" in image or ":" in image) else None
    out: list[Launch] = []
    served = next((get(sglang, m, "served-model-name") or get(sglang, m, "served_model_name")
                   for m in ("prefill", "aggregated")
                   if get(sglang, m, "served-model-name") or get(sglang, m, "served_model_name")),
                  model)
    for mode, env_key, role in _MODES:
        config = sglang.get(mode)
        if not isinstance(config, dict):
            continue
        at = ("backend", "sglang_config", mode)
        line = doc.line(at)
        words = [Word(w, line) for w in ("python3", "-m", module, "--model-path", str(model),
                                         "--served-model-name", str(served), "--host",
                                         "0.0.0.0")]
        if mode != "aggregated":
            words += [Word("--disaggregation-mode", line), Word(mode, line)]
        words += _map_flags(config, doc, at)
        env = backend.get(env_key)
        context = Context(
            doc.path, "srt-slurm",
            env={**({str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}),
                 **variables},
            container=mode, role=role, gpu_count=_gpus(resources, mode if mode != "aggregated"
                                                       else "agg"),
            gpu_kind=str(get(resources, "gpu_type")) if get(resources, "gpu_type") else None,
            release=str(release) if release is not None and not use_sglang else None,
            image=image, image_line=doc.line(("model", "container")) if image else 0,
            notes=(f"srtctl passes --model-path {model} as the path it mounts the model at",))
        found = launch_of_words(words, context)
        if found is not None:
            out.append(found)
    return out


def override_recipe(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """An srtctl recipe of variants (``base:`` and ``override_*``/``zip_override_*`` sections,
    srt-slurm ``src/srtctl/core/config.py`` ``expand_zip_override``): said unread, not passed
    as a file with no launch (the variants' launches are not composed here)."""
    raise InputError("an srtctl recipe of variants (base: with override sections): cgconfig "
                     "reads plain recipes only; its launches are not checked",
                     where=doc.where(("base",)))
