"""A YAML file's documents, each read by the reader its kind names.

Kubernetes documents are told by ``apiVersion``/``kind``; the others by their top-level keys:
compose (``services`` with ``image``/``command``/``entrypoint``), SkyPilot (``run``), an
srt-slurm recipe (``backend.sglang_config``), production-stack Helm values
(``servingEngineSpec.modelSpec``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cgconfig.docio import load_yaml_documents
from cgconfig.errors import InputError
from cgconfig.files.container import Document
from cgconfig.files.kubernetes import Reader, kubernetes_reader
from cgconfig.files.record import Launch

#: What the reader reads, for the line that says a file started no engine.
KINDS_READ = ("Kubernetes workloads (Deployment, StatefulSet, Job, Pod...), LeaderWorkerSet, "
              "DisaggregatedSet, DynamoGraphDeployment, OME serving runtimes, docker compose, "
              "SkyPilot tasks, srt-slurm recipes, production-stack Helm values, shell scripts")


def reader_of(data: dict[str, Any]) -> Reader | None:
    """The reader for one document, or ``None`` when its kind starts no engine."""
    if "apiVersion" in data or "kind" in data:
        return kubernetes_reader(data)
    if isinstance(data.get("servingEngineSpec"), dict):
        from cgconfig.files.helm import production_stack

        return production_stack
    backend = data.get("backend")
    if isinstance(backend, dict) and any(k.endswith("_config") for k in backend):
        from cgconfig.files.recipes import srt_slurm

        return srt_slurm
    if isinstance(data.get("base"), dict) and isinstance(data["base"].get("backend"), dict):
        from cgconfig.files.recipes import override_recipe

        return override_recipe
    if isinstance(data.get("services"), dict):
        from cgconfig.files.compose import compose

        return compose
    if isinstance(data.get("run"), str):
        from cgconfig.files.skypilot import skypilot

        return skypilot
    return None


def launches_in_documents(path: str, text: str, variables: Mapping[str, str]) -> list[Launch]:
    """Every launch in the YAML stream ``text``, document by document."""
    out: list[Launch] = []
    read_any = False
    for data, lines, scalars in load_yaml_documents(text, path):
        if not isinstance(data, dict):
            continue
        reader = reader_of(data)
        if reader is None:
            continue
        read_any = True
        out += reader(Document(path, data, lines, scalars), variables)
    if not out:
        what = ("its documents start no engine" if read_any else
                "none of its documents is a kind cgconfig reads")
        raise InputError(f"no engine launch found: {what}", where=path,
                         allowed=KINDS_READ,
                         hint="give the launch line itself: cgconfig resolve vllm serve MODEL ...")
    return out
