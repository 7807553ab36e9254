"""The hostile-input campaign's CLI catalogue, generated fresh on each run (see campaign.py).

Each :class:`Case` is one command line with the files it needs, the environment it adds, its
stdin, what a clean result is (``expect``: ``bad`` = exit 2 and one stderr line, ``ok`` = exit
0, ``any`` = a documented exit code) and, where a wrong answer could hide behind exit 0, a
``check`` that reads the result and returns a finding (``misread: ...`` / ``security: ...``).
Nothing here is taken from the fixed catalogue in ``tests/hostile/catalogue.py``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

#: A check gets (exit code, stdout, stderr, case directory) and returns a finding or None.
Check = Callable[[int, bytes, str, str], "str | None"]


@dataclass
class Case:
    """One campaign row."""

    family: str
    args: list[str]
    files: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    stdin: str | bytes | None = None
    """``None``: /dev/null; bytes: fed; ``"closed"``, ``"/dev/zero"``, ``"/dev/urandom"``."""
    expect: str = "any"
    check: Check | None = None


CONTROL = ["\x1b[2J", "\x1b]52;c;SGVsbG8=\x07", "\x9b31m", "\u202e", "\u2028", "\r\x1b[1A",
           "\x07", "\x1b[8m"]
LONE = ["\ud800", "\udfff", "\udc80"]
UNSAFE = set("\x1b\x07\x9b\u202e\u2028\r")
NUMERALS = ["٨", "８", "८", "৮", "١٠", "²", "1_0", "8_0", "0x10", "1e400", "inf", "nan", "-0",
            "0", "+5", "5.0", "1" + "0" * 40, "1,000", " 5", "5 ", "⁵", "Ⅷ", "0o10", "1e3"]
YAML_NUMBERS = {"010": 8, "0o10": None, "1_0": 10, "1:00": 60, "8_0": 80, "0b11": 3,
                "1_000": 1000, "0x_10": 16, "+010": 8, "1:30:00": 5400}
TAGS = ["!!int", "!!float", "!!bool", "!!timestamp", "!!null x", "!!int ''", "!!float .",
        "!!binary", "!!str", "!!int abc", "!!bool maybe"]


def raw_output_check(code: int, out: bytes, err: str, d: str) -> str | None:
    """No terminal control, bidi override or line separator from the input reaches the
    terminal raw; JSON output still parses."""
    text = out.decode("utf-8", "surrogateescape") + err
    bad = sorted({c for c in text if c in UNSAFE or 0x80 <= ord(c) <= 0x9f})
    if bad:
        return f"security: raw {bad!r} on the terminal"
    return None


def _json_plan(out: bytes) -> dict[str, Any] | None:
    try:
        doc = json.loads(out)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def fact_is_not(name: str, wrong: Any) -> Check:
    """Exit 0 must not have read the fact as ``wrong`` (the YAML 1.1 / non-ASCII misread)."""
    def check(code: int, out: bytes, err: str, d: str) -> str | None:
        plan = _json_plan(out) if code == 0 else None
        if plan is not None and plan.get("facts", {}).get(name) == wrong:
            return f"misread: {name} read as {wrong!r}"
        return None
    return check


def must_not_succeed(reason: str) -> Check:
    def check(code: int, out: bytes, err: str, d: str) -> str | None:
        return f"misread: exit 0 ({reason})" if code == 0 else None
    return check


# ------------------------------------------------------------------------------ families

def numbers(rng: random.Random) -> Iterator[Case]:
    flags = ["--tp-size", "--pp-size", "--cuda-graph-max-bs-decode", "--chunked-prefill-size",
             "--max-running-requests", "--gpu-memory-gib", "--gpu-sm", "--context-length",
             "--cuda-graph-bs-decode", "--dp-size", "--cuda-graph-max-bs-prefill",
             "--piecewise-cuda-graph-max-tokens", "--speculative-num-draft-tokens",
             "--torch-compile-max-bs", "--model-context-length"]
    for flag in flags:
        for value in NUMERALS:
            plain = value.isascii() and value.strip().isdigit() and "_" not in value
            yield Case("numbers", ["resolve", "-o", "json", flag, value],
                       check=None if plain else _non_ascii_read(value))
    for flag in ("--max-num-seqs", "--max-num-batched-tokens", "-tp",
                 "-cc.max_cudagraph_capture_size"):
        for value in NUMERALS:
            word = [f"{flag}={value}"] if flag.startswith("-cc.") else [flag, value]
            yield Case("numbers", ["resolve", "-o", "json", "vllm", "serve", "m", *word],
                       check=_non_ascii_read(value))


def _non_ascii_read(value: str) -> Check:
    def check(code: int, out: bytes, err: str, d: str) -> str | None:
        if code == 0 and not value.isascii():
            return f"misread: {value!r} accepted as a number"
        return None
    return check


def yaml_numbers(rng: random.Random) -> Iterator[Case]:
    for key in ("tp_size", "pp_size", "gpu_memory_gib", "chunked_prefill_size", "dp_size"):
        for text, wrong in YAML_NUMBERS.items():
            yield Case("yaml-1.1", ["resolve", "-o", "json", "--deployment", "{d}/dep.yaml"],
                       files={"dep.yaml": f"{key}: {text}\n"},
                       check=fact_is_not(key, wrong) if wrong is not None else None)
    for text, wrong in YAML_NUMBERS.items():
        yield Case("yaml-1.1", ["resolve", "-o", "json", "--cuda-graph-config", "{d}/c.yaml"],
                   files={"c.yaml": f"decode:\n  max_bs: {text}\n"}, check=_max_bs_not(wrong))
        yield Case("yaml-1.1", ["resolve", "--dialect", "trtllm", "--extra-llm-api-options",
                                "{d}/t.yaml", "-o", "json"],
                   files={"t.yaml": f"cuda_graph_config:\n  max_batch_size: {text}\n"},
                   check=_max_bs_not(wrong))


def _max_bs_not(wrong: Any) -> Check:
    def check(code: int, out: bytes, err: str, d: str) -> str | None:
        plan = _json_plan(out) if code == 0 else None
        if plan is not None and wrong is not None and \
                plan.get("config", {}).get("decode", {}).get("max_bs") == wrong:
            return f"misread: max_bs read as {wrong}"
        return None
    return check


def yaml_tags(rng: random.Random) -> Iterator[Case]:
    places = {
        "deployment": (["resolve", "--deployment", "{d}/x.yaml"], "tp_size: {v}\n"),
        "config": (["resolve", "--cuda-graph-config", "{d}/x.yaml"], "decode:\n  max_bs: {v}\n"),
        "trtllm": (["resolve", "--dialect", "trtllm", "--extra-llm-api-options", "{d}/x.yaml"],
                   "cuda_graph_config:\n  max_batch_size: {v}\n"),
        "rule-pack": (["resolve", "--rules", "{d}/x.yaml"],
                      "pack: p\ntitle: t\nrules:\n  - id: p.r\n    title: t\n    kind: policy\n"
                      "    when: {{eq: {{path: facts.tp_size, value: {v}}}}}\n"
                      "    then: [{{warn: true}}]\n    reason: r\n    source: s\n"
                      "    examples:\n      - {{args: [], fires: true}}\n"
                      "      - {{args: [--tp-size, '2'], fires: false}}\n"),
        "bare": (["resolve", "--deployment", "{d}/x.yaml"], "  {v}\n"),
    }
    for args, template in places.values():
        for tag in TAGS:
            yield Case("yaml-tags", list(args), files={"x.yaml": template.format(v=tag)})


def escapes(rng: random.Random) -> Iterator[Case]:
    for payload in CONTROL:
        for fmt in ("table", "json", "yaml"):
            out = ["-o", fmt]
            cfg = json.dumps({"architectures": [f"X{payload}ForCausalLM"], "hidden_size": 8})
            yield Case("escape", ["resolve", "--model-path", "{d}/m", *out],
                       files={"m/config.json": cfg}, check=raw_output_check)
            yield Case("escape", ["resolve", "--deployment", "{d}/d.json", *out],
                       files={"d.json": json.dumps({"model_arch": payload + "Arch"})},
                       check=raw_output_check)
            yield Case("escape", ["resolve", "--model-arch", "A" + payload, *out],
                       check=raw_output_check)
            yield Case("escape", ["explain", "--all", "--model-path", "{d}/m", *out],
                       files={"m/config.json": cfg}, check=raw_output_check)
        pack = ("pack: p\ntitle: " + json.dumps("T" + payload) + "\nrules:\n  - id: p.r\n"
                "    title: " + json.dumps("t" + payload) + "\n    kind: policy\n"
                "    when: {eq: {path: facts.tp_size, value: 1}}\n    then: [{ACTION: true}]\n"
                "    reason: " + json.dumps("r" + payload) + "\n    hint: "
                + json.dumps("h" + payload) + "\n    source: s\n    examples:\n"
                "      - {args: [], fires: true}\n      - {args: [--tp-size, '2'], fires: false}\n")
        for action in ("warn", "refuse"):
            files = {"p.yaml": pack.replace("ACTION", action)}
            for args in (["resolve"], ["resolve", "-o", "json"], ["rules", "list"],
                         ["explain", "--all"]):
                yield Case("escape", [*args, "--rules", "{d}/p.yaml"], files=files,
                           check=raw_output_check)
            yield Case("escape", ["rules", "show", "p.r", "--rules", "{d}/p.yaml"],
                       files=files, check=raw_output_check)
            yield Case("escape", ["rules", "validate", "{d}/p.yaml"], files=files,
                       check=raw_output_check)
        yield Case("escape", ["resolve", "--deployment", "{d}/" + "f" + payload.replace("/", "")
                              + ".yaml"], check=raw_output_check)
        yield Case("escape", ["resolve", "--nope" + payload], check=raw_output_check,
                   expect="bad")
        for fmt in ("table", "json", "yaml"):
            yield Case("escape", ["resolve", "--model-path", "/no/" + payload, "-o", fmt],
                       check=raw_output_check)
            yield Case("escape", ["tune", "--histogram", "{d}/h.json", "-o", fmt], files={
                "h.json": json.dumps({"schema_version": 1, "source": "s" + payload,
                                      "phases": {"decode": {"8": 3}}})}, check=raw_output_check)
            yield Case("escape", ["resolve", "--rules", "{d}/r" + payload.replace("/", "")
                                  + ".yaml", "-o", fmt], check=raw_output_check)
        yield Case("escape", ["diff", "{d}/a.json", "{d}/b.json"], files={
            "a.json": "PLAN", "b.json": ("PLAN", {"warnings": ["w" + payload]})},
                   check=raw_output_check)
        yield Case("escape", ["resolve", "-o", "json"],
                   env={"CGCONFIG_CACHE_DIR": "{d}/c" + payload.replace("/", ""),
                        "CGCONFIG_NO_CACHE": ""}, files={"c" + payload.replace("/", ""): "DIR777"},
                   check=raw_output_check)
    for lone in LONE:
        esc = f"\\u{ord(lone):04x}"  # the JSON escape of the lone surrogate
        for fmt in ("table", "json", "yaml"):
            yield Case("surrogate", ["resolve", "--model-path", "{d}/m", "-o", fmt],
                       files={"m/config.json": f'{{"architectures": ["{esc}"]}}'},
                       check=raw_output_check)
            yield Case("surrogate", ["resolve", "--json-model-override-args",
                                     f'{{"architectures": ["{esc}"]}}',
                                     "-o", fmt], check=raw_output_check)
            yield Case("surrogate", ["resolve", "--deployment", "{d}/d.json", "-o", fmt],
                       files={"d.json": f'{{"model_path": "{esc}/x"}}'},
                       check=raw_output_check)
        yield Case("surrogate", ["diff", "{d}/a.json", "{d}/b.json"], files={
            "a.json": "PLAN", "b.json": ("PLAN", {"warnings": ["SURR"]})},
                   check=raw_output_check)


def stdin_reads(rng: random.Random) -> Iterator[Case]:
    feeds: list[str | bytes] = ["/dev/zero", "/dev/urandom", "closed", b"\xff", b"\xff" * 100,
                                b" " * (3 << 20), b"{" * 100_000, b"[" * 5000, b"", b"\x00",
                                b"\xef\xbb\xbf{}", "{}".encode("utf-16"), b"a: !!int\n",
                                b"a: &a [*a]\n", b"- " * 60_000]
    for feed in feeds:
        for fmt in ("table", "json"):
            yield Case("stdin", ["diff", "{d}/a.json", "-", "-o", fmt], files={"a.json": "PLAN"},
                       stdin=feed, expect="bad")
            yield Case("stdin", ["diff", "-", "{d}/a.json", "-o", fmt], files={"a.json": "PLAN"},
                       stdin=feed, expect="bad")


def writes(rng: random.Random) -> Iterator[Case]:
    log = "[2026-01-01 00:00:00] Decode batch. #running-req: 8, #token: 9\n"
    targets = {"chardev": "CHARDEV", "fifo": "FIFO", "dir": "DIR", "victim-link-1777":
               ("SYMLINK1777", "victim"), "victim-link-0777": ("SYMLINK777", "victim"),
               "dangling-link": ("SYMLINK", "nowhere"), "link-to-chardev": ("SYMLINK", "cdev"),
               "missing-dir": None, "long-name": None, "newline-name": None, "plain": None}
    for name, spec in targets.items():
        out = {"missing-dir": "{d}/no/such/dir/h.json", "long-name": "{d}/" + "x" * 300,
               "newline-name": "{d}/a\nb.json", "plain": "{d}/h.json",
               "victim-link-1777": "{d}/s1777/h.json", "victim-link-0777": "{d}/s777/h.json",
               }.get(name, "{d}/t")
        files: dict[str, Any] = {"s.log": log, "victim": "secret", "cdev": "CHARDEV"}
        if spec is not None:
            files["t" if not name.startswith("victim") else
                  out.split("{d}/", 1)[1]] = spec
        for extra in ([], ["--decode-log-interval", "1"]):
            yield Case("write", ["histogram", "--sglang-log", "{d}/s.log", "-o", out, *extra],
                       files=dict(files), check=_victim_safe)
    yield Case("write", ["histogram", "--sglang-log", "{d}/s.log", "-o", ""],
               files={"s.log": log}, expect="bad", check=_victim_safe)
    for owner in ("other", "self"):
        yield Case("cache", ["resolve", "-o", "json"], files={
            "mine/packs-report-1.json": "{}", "cg": ("SYMLINK_OWNED", "mine", owner)},
                   env={"CGCONFIG_CACHE_DIR": "{d}/cg", "CGCONFIG_NO_CACHE": ""},
                   check=_report_survives if owner == "other" else None)


def _victim_safe(code: int, out: bytes, err: str, d: str) -> str | None:
    import os
    import stat

    victim = os.path.join(d, "victim")
    if os.path.exists(victim) and open(victim).read() != "secret":  # noqa: SIM115
        return "security: the victim's file was overwritten"
    cdev = os.path.join(d, "cdev")
    if os.path.lexists(cdev) and not stat.S_ISCHR(os.lstat(cdev).st_mode):
        return "security: a character device was replaced"
    for root, _, names in os.walk(d):
        if any(n.endswith(".tmp") for n in names):
            return "other: a temporary file was left behind"
        del root
    return None


def _report_survives(code: int, out: bytes, err: str, d: str) -> str | None:
    import os

    names = sorted(os.listdir(os.path.join(d, "mine")))
    if names != ["packs-report-1.json"]:
        return f"security: the cache went through another user's symlink ({names})"
    return None


def own_flag_prefixes(rng: random.Random) -> Iterator[Case]:
    from cgconfig.cli.options import HOST_FLAGS
    from cgconfig.fields.flags import known_spellings
    from cgconfig.line.table import load_table

    table = load_table("sglang")
    own = sorted({*HOST_FLAGS.flags, *(s for s in known_spellings() if table.lookup(s) is None)})
    exact = {*HOST_FLAGS.flags, *known_spellings(), *table.by_spelling}
    for spelling in own:
        if not spelling.startswith("--"):
            continue
        for cut in range(3, len(spelling)):
            prefix = spelling[:cut]
            if prefix in exact:
                continue
            yield Case("own-prefix", ["resolve", prefix],
                       check=must_not_succeed(f"{prefix} completed into some flag"))
            if rng.random() < 0.4:
                yield Case("own-prefix", ["resolve", "python3", "-m", "sglang.launch_server",
                                          prefix],
                           check=must_not_succeed(f"{prefix} completed into some flag"))


def entry_points(rng: random.Random) -> Iterator[Case]:
    options = [["-X", "dev"], ["-W", "ignore"], ["-Xdev"], ["-Wignore"], ["-u"], ["-uB"],
               ["-OO"], ["-I"], ["-s", "-E"], ["--check-hash-based-pycs", "always"],
               ["-X", "importtime", "-W", "error"], ["-q"], ["-bb"], ["-R"]]
    pythons = ["python3", "python", "/usr/bin/python3.11", "python3.12", "./venv/bin/python"]
    for py in pythons:
        for opts in options:
            yield Case("entry", ["resolve", "-o", "json", py, *opts, "-m",
                                 "sglang.launch_server", "--tp-size", "2"], expect="ok",
                       check=_tp_is(2))
    for n in (2_000, 10_000, 20_000):
        yield Case("entry", ["resolve", *["-/python"] * n, "python"], expect="bad")
        yield Case("entry", ["resolve", *["python"] * (n * 5)], expect="bad")
        yield Case("entry", ["resolve", "python", *["-u"] * n, "-m", "sglang.launch_server"])
        yield Case("entry", ["resolve", *(["python3", "-X"] * (n // 2))], expect="bad")


def _tp_is(value: int) -> Check:
    def check(code: int, out: bytes, err: str, d: str) -> str | None:
        plan = _json_plan(out) if code == 0 else None
        if code == 0 and (plan is None or plan.get("facts", {}).get("tp_size") != value):
            return f"misread: tp_size not {value}"
        return None
    return check


VAR = "SGLANG_MEMORY_SAVER_CUDA_GRAPH"


def environments(rng: random.Random) -> Iterator[Case]:
    line = ["python3", "-m", "sglang.launch_server", "--enable-memory-saver"]
    wrappers: list[tuple[list[str], bool | None]] = [
        ([], None), (["env", "-i"], False), (["env", "-"], False),
        (["env", "--ignore-environment"], False), (["env", "-u", VAR], False),
        (["env", f"--unset={VAR}"], False), (["env", f"-u{VAR}"], False),
        (["env", "-i", f"{VAR}=1"], True), (["env", f"{VAR}=1"], True), ([f"{VAR}=1"], True),
        (["env", "-u", VAR, f"{VAR}=1"], True), ([f"{VAR}=1", "env", "-i"], False),
        (["docker", "run", "img"], False), (["docker", "run", "-e", f"{VAR}=1", "img"], True),
        (["docker", "run", f"--env={VAR}=1", "img"], True),
        (["docker", "run", "-e", VAR, "img"], None), (["podman", "run", "--rm", "img"], False),
        (["sudo", "-E"], None), (["nohup"], None), (["env", "-i", "A=1", "env"], False),
    ]
    for words, refused in wrappers:
        for outer in (True, False):
            want = outer if refused is None else refused
            env = {VAR: "1"} if outer else {}
            yield Case("environment", ["resolve", *words, *line], env=env,
                       expect="bad" if want else "ok")


def repeated(rng: random.Random) -> Iterator[Case]:
    docs = ['{"decode": {"max_bs": 8}}', '{"prefill": {"max_bs": 64}}', '{"decode": {}}']
    for a in docs:
        for b in docs:
            yield Case("repeated", ["resolve", "-o", "json", "--cuda-graph-config", a,
                                    "--cuda-graph-config", b], expect="ok",
                       check=_config_is_last(b))
    for extra in ([], ["--tp-size", "2"]):
        yield Case("repeated", ["resolve", "--deployment", "{d}/a.yaml", *extra,
                                "--deployment", "{d}/b.yaml"],
                   files={"a.yaml": "tp_size: 2\n", "b.yaml": "pp_size: 2\n"}, expect="bad")
    for value in ("", " ", "=", "vllm=", "\x1b"):
        yield Case("repeated", ["resolve", f"--dialect={value}"], expect="bad")
    for spelling in ("-ojson", "-oyaml", "-o=json", "--output=json"):
        for cmd in ("resolve", "explain"):
            yield Case("repeated", [cmd, spelling], expect="ok")


def _config_is_last(last: str) -> Check:
    want = json.loads(last)

    def check(code: int, out: bytes, err: str, d: str) -> str | None:
        plan = _json_plan(out) if code == 0 else None
        if plan is None:
            return None
        for phase, keys in want.items():
            for key, value in keys.items():
                if plan["config"][phase][key] != value:
                    return f"misread: {phase}.{key} is not the last --cuda-graph-config's"
        if "decode" not in want and plan["config"]["decode"]["max_bs"] == 8:
            return "misread: an earlier --cuda-graph-config was merged in"
        return None
    return check
