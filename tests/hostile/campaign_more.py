"""More campaign families: model configs, GPU tools, rule packs, explain/tune/diff, paths."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from tests.hostile.campaign_cases import TAGS, Case, Check, _json_plan, must_not_succeed


def model_configs(rng: random.Random) -> Iterator[Case]:
    positions = ["1e300", "1e308", "-1", "0", "1e20", '"4096"', "true", "4096.5",
                 str(2**64), "1" * 400, "4096", "[]", "{}"]
    factors = ["1", "1e10", "1e300", "-1", "0", '"x"', "1e-300", "4", "null"]
    for pos in positions:
        for factor in factors:
            for kind in ('"rope_type": "yarn"', '"type": "linear"', '"type": "dynamic"'):
                cfg = ('{"architectures": ["LlamaForCausalLM"], "max_position_embeddings": '
                       f'{pos}, "rope_scaling": {{"factor": {factor}, {kind}}}}}')
                yield Case("config.json", ["resolve", "--model-path", "{d}/m"],
                           files={"m/config.json": cfg})
    for key in ("max_position_embeddings", "hidden_size", "num_hidden_layers", "kv_lora_rank"):
        for first, last in (("4096", "8192"), ("8192", "1e300"), ('"a"', "4096")):
            cfg = (f'{{"architectures": ["LlamaForCausalLM"],\n"{key}": {first},\n'
                   f'"{key}": {last}}}\n')
            yield Case("config.json", ["resolve", "-o", "json", "--model-path", "{d}/m"],
                       files={"m/config.json": cfg}, check=_line_of_last(key))


def _line_of_last(key: str) -> Check:
    def check(code: int, out: bytes, err: str, d: str) -> str | None:
        plan = _json_plan(out) if code == 0 else None
        if plan is None or key != "max_position_embeddings":
            return None
        source = plan["key_facts"]["model_context_length"]["source"]
        if plan["key_facts"]["model_context_length"]["value"] == 8192 and \
                not source.endswith(":3"):
            return f"misread: provenance {source} is not the line of the value used"
        return None
    return check


def gpu_tools(rng: random.Random) -> Iterator[Case]:
    nvidia = ["0", "0, 9.0", "-1, 9.0", "٨١٩٢٠, 9.0", "８１９２０, 9.0", "81920, inf",
              "81920, 1e400", "81920, nan", "1e400, 9.0", "81920, ٩.٠", "81_920, 9.0",
              "81920, 9.0\n81920, 9.0", "", "[N/A], [N/A]", "81920", "81920, 9.0, x",
              "\x1b[2J81920, 9.0", "9" * 5000 + ", 9.0", "0.0001, 9.0"]
    rocm = ['{"card0": {"VRAM Total Memory (B)": "85_899_345_920"}}',
            '{"card0": {"VRAM Total Memory (B)": "0"}}', '{"card0": {"VRAM Total Memory (B)": -1}}',
            '{"card0": {"VRAM Total Memory (B)": "٨٥٨٩٩٣٤٥٩٢٠"}}', '{"card0": []}',
            '{"card0": {"VRAM Total Memory (B)": 1e400}}', 'WARN {"card0": {}}', "{" * 5000,
            '{"card0": {"VRAM Total Memory (B)": "' + "9" * 5000 + '"}}']
    for out in nvidia:
        script = "#!/bin/sh\ncat <<'EOF'\n" + out + "\nEOF\n"
        yield Case("gpu-probe", ["resolve", "-o", "json"], files={"bin/nvidia-smi": ("EXE", script)},
                   env={"PATH": "{d}/bin:/usr/bin:/bin", "CGCONFIG_NO_GPU_PROBE": ""},
                   check=_memory_not_misread(out))
    for out in rocm:
        script = "#!/bin/sh\ncat <<'EOF'\n" + out + "\nEOF\n"
        yield Case("gpu-probe", ["resolve", "-o", "json", "--device", "hip"],
                   files={"bin/rocm-smi": ("EXE", script)},
                   env={"PATH": "{d}/bin:/usr/bin:/bin", "CGCONFIG_NO_GPU_PROBE": ""},
                   check=_memory_not_misread(out))


def _memory_not_misread(out: str) -> Check:
    field = out.split(",")[0] if not out.lstrip().startswith(("{", "W")) else out
    suspicious = not field.isascii() or "_" in field

    def check(code: int, stdout: bytes, err: str, d: str) -> str | None:
        plan = _json_plan(stdout) if code == 0 else None
        if plan is None:
            return None
        gib = plan["key_facts"]["gpu_memory_gib"]["value"]
        if suspicious and gib is not None:
            return f"misread: GPU memory {gib} GiB from {out[:30]!r}"
        if gib is not None and gib <= 0:
            return f"misread: GPU memory {gib} GiB"
        return None
    return check


def pack(n_rules: int, examples: int, action: str = "clamp") -> str:
    rows = []
    for i in range(n_rules):
        then = (f"[{{clamp: {{key: decode.max_bs, max: {100 + i}}}}}]" if action == "clamp"
                else "[{warn: true}]")
        ex = "".join("      - {args: [--tp-size, '2'], fires: true}\n" if k % 2 == 0 else
                     "      - {args: [], fires: false}\n" for k in range(examples))
        rows.append(f"  - id: h.r{i}\n    title: t\n    kind: constraint\n"
                    f"    when: {{ge: {{path: facts.tp_size, value: 2}}}}\n    then: {then}\n"
                    f"    reason: r\n    source: s\n    examples:\n{ex}")
    return "pack: hostile\ntitle: t\nrules:\n" + "".join(rows)


def rule_packs(rng: random.Random) -> Iterator[Case]:
    for n_rules, examples in ((1, 9000), (1, 17), (1, 16), (1000, 8), (300, 2), (128, 2),
                              (64, 2), (40, 4), (8, 16), (20, 12), (1000, 2), (500, 2)):
        for action in ("clamp", "warn"):
            yield Case("rules-validate", ["rules", "validate", "{d}/p.yaml"],
                       files={"p.yaml": pack(n_rules, examples, action)})
            if examples <= 16 and n_rules <= 300 and rng.random() < 0.5:
                yield Case("rules-resolve", ["resolve", "--tp-size", "2", "--rules", "{d}/p.yaml"],
                           files={"p.yaml": pack(n_rules, examples, action)})


def commands(rng: random.Random) -> Iterator[Case]:
    from cgconfig.cli.explain_cmd import CAPTURE_KEY, ENGINE_KEYS

    lines = [[], ["vllm", "serve", "m"], ["trtllm-serve", "m"],
             ["python3", "-m", "sglang.launch_server", "--tp-size", "2"], ["--dialect", "vllm"],
             ["--dialect", "trtllm"]]
    for key in (CAPTURE_KEY, *ENGINE_KEYS):
        for line in lines:
            for fmt in ("table", "json"):
                yield Case("explain", ["explain", key, *line, "-o", fmt])
    hist = {"h.json": json.dumps({"schema_version": 1, "phases": {"decode": {"8": 4, "3": 9}}})}
    for line in lines:
        for extra in ([], ["--max-graphs", "3"], ["--max-waste", "0"], ["-o", "json"]):
            yield Case("tune", ["tune", "--histogram", "{d}/h.json", *extra, *line],
                       files=dict(hist))
    bad_sizes: list[Any] = [["1", "2"], [True, False], [1.5], [-1], [2**70], {}, None, "1,2",
                            [[1]], [0], [1, "x"]]
    for sizes in bad_sizes:
        for phase in ("decode", "prefill"):
            yield Case("diff-sizes", ["diff", "{d}/a.json", "{d}/b.json"], files={
                "a.json": "PLAN", "b.json": ("PLAN", {"capture": {phase: {"sizes": sizes}}})},
                       expect="bad", check=must_not_succeed("a plan with bad sizes was read"))


def paths(rng: random.Random) -> Iterator[Case]:
    odd = ["~nosuchuser/m", "~nosuchuser", "~", "~/", "~root/x", "~" + "x" * 300 + "/m",
           "~nosuchuser/../m"]
    for path in odd:
        for args in (["--model-path", path], ["--deployment", path], ["--rules", path],
                     ["--cuda-graph-config", "@" + path], ["--json-model-override-args", path]):
            yield Case("paths", ["resolve", *args])
        for var in ("HF_HOME", "HF_HUB_CACHE", "XDG_CACHE_HOME", "CGCONFIG_CACHE_DIR"):
            yield Case("paths", ["resolve", "--model-path", "org/m"], env={var: path})
    for tag in TAGS:
        yield Case("paths", ["resolve", "--json-model-override-args", '{"a": 1}',
                             "--deployment", "{d}/x.yaml"], files={"x.yaml": f"model_path: {tag}\n"})
