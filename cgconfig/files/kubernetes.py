"""Kubernetes documents that start engines: workloads, LeaderWorkerSet, DisaggregatedSet,
Dynamo's DynamoGraphDeployment (v1alpha1, v1beta1) and OME's serving runtimes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cgconfig.files.container import Document, container_launches, get, gpu_limit
from cgconfig.files.context import Context
from cgconfig.files.expand import UNKNOWN
from cgconfig.files.record import Launch
from cgconfig.files.roles import label_role

#: Workload kinds whose pod template is ``spec.template`` (a Pod's is the document itself,
#: a CronJob's ``spec.jobTemplate.spec.template``).
_TEMPLATED = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job")

#: Labels that name a pod's P/D role (llm-d's, and the plain ``role`` label).
_ROLE_LABELS = ("llm-d.ai/role", "role", "app.kubernetes.io/component")


def _pod_containers(doc: Document, pod: Any, at: tuple[Any, ...], context: Context,
                    variables: Mapping[str, str],
                    injected: Mapping[str, str] | None = None) -> list[Launch]:
    """Launches of a pod template's containers (``at`` is the template's path)."""
    labels = get(pod, "metadata", "labels")
    if context.role is None and isinstance(labels, dict):
        for key in _ROLE_LABELS:
            role = label_role(labels.get(key))
            if role is not None:
                context = _with(context, role=role)
                break
    out: list[Launch] = []
    containers = get(pod, "spec", "containers")
    for i, spec in enumerate(containers if isinstance(containers, list) else []):
        out += container_launches(doc, spec, (*at, "spec", "containers", i), context, variables,
                                  injected)
    return out


def _with(context: Context, **changes: Any) -> Context:
    from dataclasses import replace

    return replace(context, **changes)


def workload(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """A Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob or Pod."""
    kind = str(doc.data.get("kind"))
    context = Context(doc.path, f"k8s-{kind.lower()}")
    if kind == "Pod":
        return _pod_containers(doc, doc.data, (), context, variables)
    at: tuple[Any, ...] = ("spec", "jobTemplate", "spec", "template") if kind == "CronJob" \
        else ("spec", "template")
    return _pod_containers(doc, get(doc.data, *at), at, context, variables)


def _lws_templates(doc: Document, lws: Any, at: tuple[Any, ...], context: Context,
                   variables: Mapping[str, str]) -> list[Launch]:
    """A ``leaderWorkerTemplate``: the leader's pods (worker index 0) and the workers'.
    LWS injects ``LWS_LEADER_ADDRESS``, ``LWS_GROUP_SIZE`` and ``LWS_WORKER_INDEX``."""
    size = get(lws, "size")
    group = str(size) if isinstance(size, int) and not isinstance(size, bool) else UNKNOWN
    base = {"LWS_LEADER_ADDRESS": UNKNOWN, "LWS_GROUP_SIZE": group}
    out: list[Launch] = []
    leader = get(lws, "leaderTemplate")
    if isinstance(leader, dict):
        out += _pod_containers(doc, leader, (*at, "leaderTemplate"), context, variables,
                               {**base, "LWS_WORKER_INDEX": "0"})
    worker = get(lws, "workerTemplate")
    if isinstance(worker, dict):
        # without a leader template the leader runs the worker template too: any index
        index = UNKNOWN if leader is not None or group != "1" else "0"
        out += _pod_containers(doc, worker, (*at, "workerTemplate"), context, variables,
                               {**base, "LWS_WORKER_INDEX": index})
    return out


def leader_worker_set(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """A LeaderWorkerSet (``spec.leaderWorkerTemplate``)."""
    context = Context(doc.path, "lws")
    labels = get(doc.data, "metadata", "labels")
    if isinstance(labels, dict):
        role = next((label_role(labels.get(k)) for k in _ROLE_LABELS if label_role(labels.get(k))),
                    None)
        context = _with(context, role=role)
    return _lws_templates(doc, get(doc.data, "spec", "leaderWorkerTemplate"),
                          ("spec", "leaderWorkerTemplate"), context, variables)


def disaggregated_set(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """A DisaggregatedSet: ``spec.roles[]``, each a named role with a leaderWorkerTemplate."""
    out: list[Launch] = []
    roles = get(doc.data, "spec", "roles")
    for i, role in enumerate(roles if isinstance(roles, list) else []):
        name = get(role, "name")
        context = Context(doc.path, "disaggregatedset", role=label_role(name))
        out += _lws_templates(doc, get(role, "spec", "leaderWorkerTemplate"),
                              ("spec", "roles", i, "spec", "leaderWorkerTemplate"), context,
                              variables)
    return out


def dgd_v1alpha1(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """A DynamoGraphDeployment v1alpha1: ``spec.services.<name>.extraPodSpec.mainContainer``,
    the role from ``subComponentType``, GPUs from the service's ``resources.limits.gpu``."""
    out: list[Launch] = []
    services = get(doc.data, "spec", "services")
    for name, service in (services.items() if isinstance(services, dict) else []):
        at = ("spec", "services", name, "extraPodSpec", "mainContainer")
        main = get(service, "extraPodSpec", "mainContainer")
        if not isinstance(main, dict):
            continue
        context = Context(doc.path, "dynamo-dgd-v1alpha1", container=str(name),
                          role=label_role(get(service, "subComponentType")),
                          gpu_count=gpu_limit(get(service, "resources")))
        out += container_launches(doc, {**main, "name": str(name)}, at, context, variables,
                                  _dynamo_env(service))
    return out


def _dynamo_env(service: Any) -> dict[str, str]:
    """A DGD service's own ``envs`` list (name/value items), as its containers see them."""
    envs = get(service, "envs")
    out: dict[str, str] = {}
    for item in envs if isinstance(envs, list) else []:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            value = item.get("value")
            out[item["name"]] = str(value) if value is not None and "valueFrom" not in item \
                else UNKNOWN
    return out


def dgd_v1beta1(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """A DynamoGraphDeployment v1beta1: ``spec.components[]`` with ``type`` and a
    ``podTemplate``."""
    out: list[Launch] = []
    components = get(doc.data, "spec", "components")
    for i, component in enumerate(components if isinstance(components, list) else []):
        name = get(component, "name")
        context = Context(doc.path, "dynamo-dgd-v1beta1",
                          container=str(name) if name is not None else None,
                          role=label_role(get(component, "type")))
        out += _pod_containers(doc, get(component, "podTemplate"),
                               ("spec", "components", i, "podTemplate"), context, variables)
    return out


#: Variables the OME controller sets in a runtime's containers (its ``MODEL_PATH``, the
#: parallel size it derives from the node shape, LWS's for multi-node runtimes).
_OME_INJECTED = ("MODEL_PATH", "PARALLELISM_SIZE", "LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE",
                 "LWS_WORKER_INDEX")


def ome_runtime(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """An OME ClusterServingRuntime / ServingRuntime: ``spec.engineConfig`` and
    ``spec.decoderConfig``, each a ``runner`` or a ``leader``/``worker`` pair of runners."""
    out: list[Launch] = []
    spec = get(doc.data, "spec")
    has_decoder = isinstance(get(spec, "decoderConfig"), dict)
    for part, role in (("engineConfig", "prefill" if has_decoder else None),
                       ("decoderConfig", "decode")):
        block = get(spec, part)
        if not isinstance(block, dict):
            continue
        injected = {name: UNKNOWN for name in _OME_INJECTED}
        for sub, index in (("leader", "0"), ("worker", UNKNOWN), (None, "0")):
            holder = block if sub is None else get(block, sub)
            runner = get(holder, "runner")
            if not isinstance(runner, dict):
                continue
            at = ("spec", part, *([sub] if sub else []), "runner")
            context = Context(doc.path, "ome-runtime", container=f"{part}.{sub or 'runner'}",
                              role=role)
            out += container_launches(doc, runner, at, context, variables,
                                      {**injected, "LWS_WORKER_INDEX": index})
    return out


Reader = Callable[[Document, Mapping[str, str]], list[Launch]]


def kubernetes_reader(data: dict[str, Any]) -> Reader | None:
    """The reader for a document's ``apiVersion``/``kind``, or ``None`` for a kind that starts
    no engine (Service, ConfigMap...)."""
    api = str(data.get("apiVersion", ""))
    kind = str(data.get("kind", ""))
    group = api.split("/", 1)[0]
    if kind == "DynamoGraphDeployment" or (group == "nvidia.com" and kind.startswith("Dynamo")):
        return dgd_v1beta1 if api.endswith("/v1beta1") else dgd_v1alpha1
    if kind == "LeaderWorkerSet":
        return leader_worker_set
    if kind == "DisaggregatedSet":
        return disaggregated_set
    if group == "ome.io" and kind in ("ClusterServingRuntime", "ServingRuntime"):
        return ome_runtime
    if kind in (*_TEMPLATED, "CronJob", "Pod"):
        return workload
    return None
