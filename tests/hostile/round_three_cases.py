"""Round three's fresh CLI families (#35, helper hostile2), generated from a seed.

Each case is argv for ``cgconfig`` plus a check of what a correct answer is (``expect``): it
returns a reason when the answer is a misread, ``None`` when it is right. The families are new
(none is in round one's or two's catalogue, nor in #35's list):

``containers``   docker/podman/nerdctl run wrappers built from the runners' own grammars
                 (``cgconfig/line/container-flags.json``): grouped short switches, attached
                 and ``=`` values, mounts and devices whose values look like images or tags;
``model-arch``   architecture names: real ones, model types, case slips, confusables, junk;
``flag-forms``   every engine table's flags in each spelling the engine's parser takes
                 (``--a_b``, ``--a-b=v``), repeated, with odd values;
``env-prefix``   ``VAR=value`` / ``env -i`` / ``env -u`` prefixes before an entry point;
``argv-shape``   many words, long words, ``--`` and ``-`` in odd places, empty words;
``outputs``      each command with each output form, help and version flags in odd places.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cgconfig.line.containers import grammars
from cgconfig.line.table import load_table
from cgconfig.line.versions import SUPPORTED
from cgconfig.model_arch_names import known_architectures

Check = Callable[[int, dict[str, Any] | None, str], str | None]


@dataclass
class Case:
    """One CLI run: argv, stdin, and what a right answer is."""

    family: str
    args: list[str]
    expect: Check | None = None
    stdin: bytes | None = None
    env: dict[str, str] = field(default_factory=dict)


ENTRIES = {"sglang": ["python3", "-m", "sglang.launch_server", "--model-path", "m"],
           "vllm": ["vllm", "serve", "m"], "trtllm": ["trtllm-serve", "m"]}
ODD = ["", " ", "-", "--", "\t", "é", "☃", "\u200b", "\x1b[31m", "\r", "a\nb", "0", "-1",
       "1e309", "nan", "0x10", "٣", "１", "9" * 40, "x" * 300, "$HOME", "'", '"', "\\", "=",
       "a=b", "/dev/kfd", "host:5000/img:v1", "vllm/vllm-openai:v0.27.1"]


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return items[rng.randrange(len(items))]


def _plan_engine(engine: str, *, tp: int | None = None, version: str | None = None) -> Check:
    def check(code: int, plan: dict[str, Any] | None, err: str) -> str | None:
        if code != 0 or plan is None:
            return None if code == 2 else f"exit {code}"
        got = plan.get("engine_version") or {}
        if got.get("engine") not in (engine, None) and engine != "sglang":
            return f"engine {got.get('engine')} for a {engine} line"
        if tp is not None and plan["facts"].get("tp_size") != tp:
            return f"tp {plan['facts'].get('tp_size')} for --tp {tp}"
        if version is not None and got.get("version") != version:
            return f"version {got.get('version')} where the image says {version}"
        if "device" in plan.get("fact_sources", {}) and "--device" in plan["fact_sources"][
                "device"]:
            return "the container's --device read as cgconfig's"
        return None
    return check


def containers(rng: random.Random, n: int) -> Iterator[Case]:
    """Container wrappers: options drawn from each runner's grammar, values that look like
    images and tags, then an engine command (or an image whose entrypoint is vLLM's)."""
    table = grammars()
    runners = sorted(table)
    for _ in range(n):
        runner = _pick(rng, runners)
        grammar = table[runner].commands["run"]
        words: list[str] = [runner, "run"] if rng.random() < 0.8 else [runner, "container", "run"]
        for _ in range(rng.randrange(0, 7)):
            if rng.random() < 0.5:
                option = _pick(rng, sorted(grammar.switches - {"--help"}))
                words.append(option)
            else:
                option = _pick(rng, sorted(grammar.valued - {"--entrypoint"}))
                value = _pick(rng, ["/data/vllm:v0.21.0", "/dev/kfd", "nvidia.com/gpu=all", "all",
                                    "host", "16g", "8000:8000", "HF_TOKEN", "A=1",
                                    "lmsysorg/sglang:v0.5.20", "x=y=z", "-1"])
                if option.startswith("--") and rng.random() < 0.3:
                    words.append(f"{option}={value}")
                elif not option.startswith("--") and rng.random() < 0.3:
                    words.append(option + value)
                else:
                    words += [option, value]
        shorts = [s[1] for s in grammar.switches if len(s) == 2]
        if shorts and rng.random() < 0.3:
            words.append("-" + "".join(rng.sample(shorts, min(len(shorts), 2))))
        engine = _pick(rng, ["sglang", "vllm", "trtllm", "image"])
        tp = rng.choice([1, 2, 4, 8])
        version = _pick(rng, list(SUPPORTED["vllm"]))
        if engine == "image":
            words += [_pick(rng, [f"vllm/vllm-openai:v{version}", f"docker.io/vllm/vllm-openai:v"
                                  f"{version}"]), "--model", "m", "--tensor-parallel-size",
                      str(tp)]
            yield Case("containers", ["resolve", "-o", "json", *words],
                       _plan_engine("vllm", tp=tp, version=version))
            continue
        image = _pick(rng, ["lmsysorg/sglang:latest", "rocm/vllm", "myregistry/custom:1",
                            "host:5000/vllm:v1", "nvcr.io/nvidia/tensorrt-llm/release:1.0"])
        tp_flag = {"sglang": "--tp", "vllm": "-tp", "trtllm": "--tp_size"}[engine]
        words += [image, *ENTRIES[engine], tp_flag, str(tp)]
        yield Case("containers", ["resolve", "-o", "json", *words], _plan_engine(engine, tp=tp))
    # An image cgconfig cannot read, with the runner's words after it: one error line.
    for _ in range(max(1, n // 10)):
        yield Case("containers", ["resolve", "docker", "run", "--gpus", "all",
                                  _pick(rng, ["img", "a/b:c", "host:5000/vllm:v1"]), "--model",
                                  "m", "--gpus", "1"], _refused)


def _refused(code: int, plan: dict[str, Any] | None, err: str) -> str | None:
    return None if code == 2 else f"exit {code} where the input must be refused"


def model_arch(rng: random.Random, n: int) -> Iterator[Case]:
    """Architecture names, right and wrong, by flag and by deployment file."""
    known = sorted(known_architectures())
    for _ in range(n):
        name = _pick(rng, known)
        kind = rng.randrange(6)
        if kind == 0:
            typed, good = name, True
        elif kind == 1:
            typed, good = name.lower(), name.lower() in known_architectures()
        elif kind == 2:
            typed, good = name[:-1], name[:-1] in known_architectures()
        elif kind == 3:
            typed = name.replace("o", "о", 1)  # Cyrillic o
            good = typed in known_architectures()
        elif kind == 4:
            typed, good = _pick(rng, ["deepseek_v3", "llama", "qwen2", "Foo123ForCausalLM", "",
                                      " LlamaForCausalLM", "LlamaForCausalLM\n", "*", "x" * 500]), \
                False
        else:
            typed, good = name + _pick(rng, ["", "X", "\x1b[0m", "\u200b"]), False
            good = typed in known_architectures()
        engine = _pick(rng, list(ENTRIES))
        line = ENTRIES[engine] if rng.random() < 0.7 else []

        def check(code: int, plan: dict[str, Any] | None, err: str, typed: str = typed,
                  good: bool = good) -> str | None:
            if good:
                if code != 0 or plan is None:
                    return f"exit {code} for a known architecture"
                return None if plan["facts"].get("model_arch") == typed else "arch misread"
            return None if code == 2 else f"exit {code} for unknown architecture {typed!r}"
        yield Case("model-arch", ["resolve", "-o", "json", "--model-arch", typed, *line], check)


def flag_forms(rng: random.Random, n: int) -> Iterator[Case]:
    """Engine table flags in the spellings their parsers take, with odd values."""
    tables = {engine: [f for f in load_table(engine).flags if not f.positional]
              for engine in ENTRIES}
    for _ in range(n):
        engine = _pick(rng, list(ENTRIES))
        words = list(ENTRIES[engine])
        for _ in range(rng.randrange(1, 4)):
            flag = _pick(rng, tables[engine])
            name = flag.name
            if rng.random() < 0.3 and name.startswith("--"):
                name = "--" + name[2:].replace("-", "_")
            value = flag.sample if flag.sample is not None else "1"
            if rng.random() < 0.4:
                value = _pick(rng, ODD)
            if not flag.takes_value:
                words.append(name)
            elif rng.random() < 0.4:
                words.append(f"{name}={value}")
            else:
                words += [name, value]
        yield Case("flag-forms", ["resolve", "-o", "json", *words])


def env_prefix(rng: random.Random, n: int) -> Iterator[Case]:
    """Environment words before an entry point."""
    names = ["SGLANG_ENABLE_TORCH_COMPILE", "VLLM_USE_V2_MODEL_RUNNER", "CUDA_VISIBLE_DEVICES",
             "SGLANG_MEMORY_SAVER_CUDA_GRAPH", "VLLM_LOG_BATCHSIZE_INTERVAL", "A", "_", "Ä"]
    for _ in range(n):
        words: list[str] = []
        if rng.random() < 0.5:
            words.append("env")
            words += rng.sample(["-i", "-u", "VLLM_X", "--unset=A", "-", "--ignore-environment"],
                                rng.randrange(0, 3))
        for _ in range(rng.randrange(0, 4)):
            words.append(f"{_pick(rng, names)}={_pick(rng, ODD)}")
        engine = _pick(rng, list(ENTRIES))
        yield Case("env-prefix", ["resolve", "-o", "json", *words, *ENTRIES[engine]],
                   env={"VLLM_USE_V2_MODEL_RUNNER": _pick(rng, ["1", "0", "x", ""])})


def argv_shape(rng: random.Random, n: int) -> Iterator[Case]:
    """Argument vectors of odd shapes."""
    for _ in range(n):
        kind = rng.randrange(6)
        if kind == 0:
            args = ["resolve", *(["--tp", "2"] * rng.randrange(1, 3000))]
        elif kind == 1:
            # Linux refuses one argument over 128 KiB (MAX_ARG_STRLEN) before cgconfig runs.
            args = ["resolve", "--model-path", "m" * rng.randrange(1, 100_000)]
        elif kind == 2:
            args = ["resolve", *rng.choices(["--", "-", "", " ", "--tp", "2", "vllm", "serve"],
                                            k=rng.randrange(1, 40))]
        elif kind == 3:
            args = [_pick(rng, ["resolve", "explain", "tune", "verify", "diff", "rules",
                                "schema", "histogram"]), *rng.choices(ODD, k=rng.randrange(0, 5))]
        elif kind == 4:
            args = ["resolve", *ENTRIES[_pick(rng, list(ENTRIES))],
                    *[f"--x{i}" for i in range(rng.randrange(1, 500))]]
        else:
            args = ["resolve", "--cuda-graph-bs", *[str(rng.randrange(-5, 1 << 20))
                                                    for _ in range(rng.randrange(1, 2000))]]
        yield Case("argv-shape", args)


def outputs(rng: random.Random, n: int) -> Iterator[Case]:
    """Each command with output forms, help and version in odd places."""
    commands = [["resolve"], ["explain"], ["rules", "list"], ["schema", "plan"], ["version"],
                ["resolve", "vllm", "serve", "m"], ["explain", "decode.max_bs"],
                ["rules", "show", "x"], ["completion", "bash"]]
    for _ in range(n):
        args = list(_pick(rng, commands))
        for _ in range(rng.randrange(0, 3)):
            extra = _pick(rng, [["-o", _pick(rng, ["json", "yaml", "table", "env", "x", ""])],
                                ["--emit", _pick(rng, ["env", "json", "args", "x"])], ["--help"],
                                ["-h"], ["--version"], ["--no-color"], ["-o"], ["--emit"]])
            at = rng.randrange(1, len(args) + 1)
            args[at:at] = extra
        yield Case("outputs", args)


FAMILIES: dict[str, Callable[[random.Random, int], Iterator[Case]]] = {
    "containers": containers, "model-arch": model_arch, "flag-forms": flag_forms,
    "env-prefix": env_prefix, "argv-shape": argv_shape, "outputs": outputs}


def plan_of(stdout: bytes) -> dict[str, Any] | None:
    """The JSON plan on stdout, if it is one."""
    try:
        data = json.loads(stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) and "facts" in data else None


#: Raw terminal controls in a message (tab and newline aside).
RAW_CONTROL_TEXT = __import__("re").compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
