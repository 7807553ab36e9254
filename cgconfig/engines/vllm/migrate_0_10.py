"""``cgconfig migrate`` between vLLM 0.10.2 and 0.11.2 or later (issue #37): 0.10.2's spellings,
each from its rows (:mod:`.compile_changes`, :mod:`.capture_size_changes`, :mod:`.attention`):
``level`` ↔ ``mode`` (and ``level`` → ``mode`` into 0.18.1, which refuses ``level``),
``full_cuda_graph`` / ``use_cudagraph`` → ``cudagraph_mode``, ``--cuda-graph-sizes`` ↔
``--max-cudagraph-capture-size`` / ``--cudagraph-capture-sizes``, ``VLLM_ATTENTION_BACKEND`` ↔
``--attention-backend`` (0.13.0 on) and ``VLLM_ALL2ALL_BACKEND`` ↔ ``--all2all-backend``, with
the backend names each release takes. Reached through the plug-in part ``migrate_support``;
each rewrite is ``(before, after, why)`` (``after`` empty: dropped). Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence

from cgconfig.engines.release_change import ReleaseChange, holds_in
from cgconfig.line.versions import label

Rewrite = tuple[list[str], list[str], str]
_CC_SPELLINGS = ("--compilation-config", "-O", "-cc")
_ENV_BACKEND, _ENV_A2A = "VLLM_ATTENTION_BACKEND", "VLLM_ALL2ALL_BACKEND"


def _l(release: str) -> str:
    return label("vllm", release)


def _vllm_holds(rows: tuple[ReleaseChange, ...], release: str) -> bool:
    return holds_in(rows, release)


def _cc_keys(doc: dict[str, object], source: str, target: str,
             where: str) -> tuple[dict[str, object], list[str], list[str]]:
    """One compilation-config document's keys as ``target`` spells them: ``level`` ↔ ``mode``
    (vLLM 0.10.2 has only ``level``, 0.18.1 on only ``mode``), 0.10.2's ``full_cuda_graph`` /
    ``use_cudagraph`` as ``cudagraph_mode``, 0.11.2+'s ``max_cudagraph_capture_size`` (no field
    in 0.10.2). Returns the document, what changed and what was dropped (each with why)."""
    from cgconfig.engines.vllm import compile_changes as cc

    out: dict[str, object] = {}
    changed: list[str] = []
    dropped: list[str] = []
    to_mode = _vllm_holds(cc.COMPILATION_MODE_FIELD, target) and (
        not _vllm_holds(cc.COMPILATION_MODE_FIELD, source)
        or not _vllm_holds(cc.COMPILATION_LEVEL_KEY, target))
    to_level = not _vllm_holds(cc.COMPILATION_MODE_FIELD, target) and _vllm_holds(
        cc.COMPILATION_MODE_FIELD, source)
    switches = _vllm_holds(cc.DEPRECATED_GRAPH_SWITCHES, source) and not _vllm_holds(
        cc.DEPRECATED_GRAPH_SWITCHES, target)
    for key, value in doc.items():
        if key == "level" and to_mode:
            if "mode" in doc:
                dropped.append(f"{where}: level dropped: mode is also set, and wins")
                continue
            out["mode"] = value
            changed.append(f"{where}: level is mode in {_l(target)} (the compilation switch "
                           f"{_l(source)} calls level)")
        elif key == "mode" and to_level:
            out["level"] = value
            changed.append(f"{where}: mode is level in {_l(target)} (CompilationConfig.level)")
        elif key in ("full_cuda_graph", "use_cudagraph") and switches:
            on = value is True if key == "full_cuda_graph" else value is False
            if not on:
                dropped.append(f"{where}: {key}={str(value).lower()} dropped: no effect in "
                               f"{_l(source)} and no field in {_l(target)}")
                continue
            mode = "FULL" if key == "full_cuda_graph" else "NONE"
            if "cudagraph_mode" in doc or "cudagraph_mode" in out:
                dropped.append(f"{where}: {key} dropped beside cudagraph_mode")
                continue
            out["cudagraph_mode"] = mode
            changed.append(f"{where}: {key}={str(value).lower()} is cudagraph_mode={mode} "
                           f"({_l(source)} CompilationConfig.__post_init__; {_l(target)} "
                           "has no such field)")
        elif key == "max_capture_size" and _vllm_holds(cc.MAX_CAPTURE_SIZE_FIELD, target) \
                and not _vllm_holds(cc.MAX_CAPTURE_SIZE_FIELD, source):
            dropped.append(f"{where}: max_capture_size dropped: {_l(source)} derives it from the "
                           f"sizes (a value given is overwritten); {_l(target)} has no such field "
                           "(its max_cudagraph_capture_size is a user field)")
        elif key == "max_cudagraph_capture_size" and not _vllm_holds(
                cc.MAX_CAPTURE_SIZE_FIELD, target):
            dropped.append(f"{where}: max_cudagraph_capture_size dropped: {_l(target)} has no "
                           "such field (it derives max_capture_size from the sizes; "
                           "--cuda-graph-sizes N asks for 1, 2, 4 and every multiple of 8 up to N)")
        else:
            out[key] = value
    return out, changed, dropped


def compilation_keys(words: Sequence[str], source: str,
                     target: str) -> tuple[list[str], list[Rewrite], list[Rewrite]]:
    """The compilation-config keys of a vLLM line's JSON documents and dotted keys in
    ``target``'s spelling (:func:`_cc_keys`)."""
    import json

    out: list[str] = []
    changes: list[Rewrite] = []
    dropped: list[Rewrite] = []
    at = 0
    while at < len(words):
        word = words[at]
        name, eq, inline = word.partition("=")
        head, dot, key = name.partition(".")
        if head in _CC_SPELLINGS and dot and key.split(".")[0] in (
                "level", "mode", "full_cuda_graph", "use_cudagraph", "max_cudagraph_capture_size"):
            spaced = not eq and at + 1 < len(words)
            value_text = inline if eq else words[at + 1] if spaced else ""
            written = [word, words[at + 1]] if spaced else [word]
            at += len(written)
            try:
                value: object = json.loads(value_text)
            except ValueError:
                value = value_text
            doc, changed, gone = _cc_keys({key: value}, source, target, word)
            if gone:
                dropped.append((written, [], "; ".join(gone)))
            after = [f"{head}.{k}={json.dumps(v) if not isinstance(v, str) else v}"
                     for k, v in doc.items()]
            if changed:
                changes.append((written, after, "; ".join(changed)))
            out += after if changed else ([] if gone else written)
            continue
        if name in _CC_SPELLINGS and (eq or at + 1 < len(words)):
            text = inline if eq else words[at + 1]
            written = [word] if eq else [word, text]
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                doc, changed, gone = _cc_keys(parsed, source, target, name)
                if changed or gone:
                    new_text = json.dumps(doc, separators=(", ", ": "))
                    after = [f"{name}={new_text}"] if eq else [name, new_text]
                    (changes if changed else dropped).append(
                        (written, after, "; ".join(changed + gone)))
                    out += after
                    at += len(written)
                    continue
        out.append(word)
        at += 1
    return out, changes, dropped


#: ``--attention-backend`` names (0.13.0 on) that vLLM 0.10.2's V1 engine spells otherwise in
#: ``VLLM_ATTENTION_BACKEND`` (a bare ``TRITON_ATTN`` there is the V0 engine's backend).
_TO_0_10_NAMES = {"TRITON_ATTN": "TRITON_ATTN_VLLM_V1"}


def environment(head: list[str], body: list[str], source: str,
                target: str) -> tuple[list[str], list[str], list[Rewrite],
                                                  list[Rewrite]]:
    """``VLLM_ATTENTION_BACKEND`` ↔ ``--attention-backend`` (0.13.0 on) and vLLM 0.10.2's
    ``VLLM_ALL2ALL_BACKEND`` ↔ ``--all2all-backend``, with the backend names each release takes;
    a V0-only name (0.10.2) cannot be kept."""
    from cgconfig.engines.vllm import compile_changes as cc
    from cgconfig.engines.vllm.attention import V1_BACKEND_NAMES, v1_backend_0_10

    changes: list[Rewrite] = []
    dropped: list[Rewrite] = []
    env_source = _vllm_holds(cc.ATTENTION_BACKEND_FROM_ENV, source)
    env_target = _vllm_holds(cc.ATTENTION_BACKEND_FROM_ENV, target)
    names_0_10 = _vllm_holds(V1_BACKEND_NAMES, target)
    a2a_source = _vllm_holds(cc.ALL2ALL_FROM_ENV, source)
    a2a_target = _vllm_holds(cc.ALL2ALL_FROM_ENV, target)
    new_head: list[str] = []
    moved: list[str] = []
    for word in head:
        var, eq, value = word.partition("=")
        if eq and var == _ENV_BACKEND and env_source:
            name = v1_backend_0_10(value, source) if _vllm_holds(
                V1_BACKEND_NAMES, source) else value.upper()
            if name == "":  # a V1 name its selector leaves to the default path: the plain name
                name = value.upper().removesuffix("_VLLM_V1")
            if name is None:
                dropped.append(([word], [], f"{_l(source)} runs the V0 engine for "
                                      f"{word}; {_l(target)} has no V0 engine and no such "
                                      "backend"))
                continue
            if not env_target:
                after = ["--attention-backend", name]
                moved += after
                changes.append(([word], after, f"{_l(target)} names the attention "
                                      "backend with --attention-backend"))
                continue
            spelled = _TO_0_10_NAMES.get(name, name) if names_0_10 else name
            if spelled != value:
                changes.append(([word], [f"{var}={spelled}"], f"{_l(target)}'s name "
                                      f"for the {name} backend"))
            new_head.append(f"{var}={spelled}")
            continue
        if eq and var == _ENV_A2A and a2a_source and not a2a_target:
            after = ["--all2all-backend", value]
            moved += after
            changes.append(([word], after, f"{_l(target)} names the all-to-all backend "
                                  "with --all2all-backend"))
            continue
        new_head.append(word)
    new_body: list[str] = []
    prefixes: list[str] = []
    at = 0
    while at < len(body):
        word = body[at]
        name, eq, inline = word.partition("=")
        value = inline if eq else body[at + 1] if at + 1 < len(body) else ""
        written = [word] if eq else body[at:at + 2]
        if name == "--attention-backend" and not env_source and env_target:
            spelled = value.upper()
            spelled = _TO_0_10_NAMES.get(spelled, spelled) if names_0_10 else spelled
            if names_0_10 and v1_backend_0_10(spelled, target) is None:
                dropped.append((written, [], f"{_l(target)}'s V1 engine has no "
                                      f"{value} attention backend"))
            else:
                prefixes.append(f"{_ENV_BACKEND}={spelled}")
                changes.append((written, [prefixes[-1]], f"{_l(target)} has no "
                                      f"--attention-backend: it reads {_ENV_BACKEND}"))
            at += len(written)
            continue
        if name == "--all2all-backend" and a2a_target and not a2a_source:
            prefixes.append(f"{_ENV_A2A}={value}")
            changes.append((written, [prefixes[-1]], f"{_l(target)} has no "
                                  f"--all2all-backend: it reads {_ENV_A2A}"))
            at += len(written)
            continue
        new_body.append(word)
        at += 1
    if prefixes:
        run = next((i for i, w in enumerate(new_head) if w == "run"), None)
        if run is not None and any(w in ("docker", "podman") for w in new_head[:run]):
            for prefix in reversed(prefixes):  # inside the container: docker run -e VAR=value
                new_head[run + 1:run + 1] = ["-e", prefix]
        else:
            new_head = prefixes + new_head
    return new_head, new_body + moved, changes, dropped


def capture_flags(words: Sequence[str], source: str,
                  target: str) -> tuple[list[str], list[Rewrite], list[Rewrite]]:
    """vLLM 0.10.2's ``--cuda-graph-sizes`` (``SchedulerConfig.cuda_graph_sizes``: one value N
    is the grid 1, 2, 4, 8, 16, … N) ↔ 0.11.2+'s ``--max-cudagraph-capture-size`` /
    ``--cudagraph-capture-sizes``; 0.11.2/0.12.0's deprecated ``--cuda-graph-sizes`` is the
    capture-size list itself."""
    from cgconfig.engines.vllm.capture_size_changes import scheduler_sizes

    old_grid, new_grid = scheduler_sizes(source), scheduler_sizes(target)
    if old_grid == new_grid:
        return list(words), [], []
    out: list[str] = []
    changes: list[Rewrite] = []
    dropped: list[Rewrite] = []
    names = ("--cuda-graph-sizes", "--cudagraph-capture-sizes", "--max-cudagraph-capture-size")
    at = 0
    while at < len(words):
        word = words[at]
        name, eq, inline = word.partition("=")
        if name not in names:
            out.append(word)
            at += 1
            continue
        values = [inline] if eq else []
        end = at + 1
        while not eq and end < len(words) and words[end].isdigit():
            values.append(words[end])
            end += 1
        written = list(words[at:end])
        at = end
        if old_grid:  # 0.10.2 → 0.11.2+
            after = (["--max-cudagraph-capture-size", values[0]] if len(values) == 1
                     else ["--cudagraph-capture-sizes", *values])
            changes.append((written, after, (
                f"{_l(source)}'s --cuda-graph-sizes {values[0]} is the grid 1, 2, 4 and every "
                f"multiple of 8 up to {values[0]}; {_l(target)}'s grid up to that maximum "
                "steps by 16 from 256") if len(values) == 1 else (
                f"{_l(source)}'s --cuda-graph-sizes with several values is that list")))
            out += after
        elif name == "--max-cudagraph-capture-size":  # → 0.10.2
            after = ["--cuda-graph-sizes", *values]
            changes.append((written, after, f"{_l(target)} has no "
                                  "max_cudagraph_capture_size: --cuda-graph-sizes N is the grid "
                                  "1, 2, 4 and every multiple of 8 up to N (no step 16 from 256)"))
            out += after
        elif len(values) > 1:
            after = ["--cuda-graph-sizes", *values]
            changes.append((written, after, f"{_l(target)} takes several sizes as "
                                  "--cuda-graph-sizes (SchedulerConfig.cuda_graph_sizes)"))
            out += after
        else:
            dropped.append((written, [], f"{_l(target)}'s --cuda-graph-sizes with one "
                                  f"value N is the grid up to N, not the size N alone; write "
                                  f"-O.cudagraph_capture_sizes=[{values[0] if values else ''}]"))
    return out, changes, dropped


def default_mode_text(release: str) -> str:
    """``release``'s compilation switch and default mode at compilation level/mode 3, for the
    note on a dropped ``-O<n>`` (``compile_changes.default_mode``)."""
    from cgconfig.engines.vllm.compile_changes import COMPILATION_MODE_FIELD, default_mode

    switch = "mode" if holds_in(COMPILATION_MODE_FIELD, release) else "level"
    return f"{switch} 3 with {default_mode(release, True, 'FULL_AND_PIECEWISE')}"
