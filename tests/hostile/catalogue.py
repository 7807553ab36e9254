"""The hostile-input catalogue of issue #11: one row per input, each a reproduction.

Every CLI row must end in exit 2 with exactly one stderr line and no traceback, under the
harness's time and memory limits. ``{d}`` in an argument is the directory holding the row's
files. File contents are text, bytes, or one of the markers ``FIFO``, ``DIR`` and
``("symlink", target)``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FIFO = "<fifo>"
DIR = "<dir>"

DEEP_JSON = "[" * 1000 + "]" * 1000
DEEP_CONFIG = '{"decode": ' + "[" * 1000 + "]" * 1000 + "}"
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
SELF_ALIAS = "a: &a [*a]\n"
BIG_INT = "1" * 5000
SECRET = "root:$6$SECRETHASHVALUE$abcdefghijklmnop:19000:0:99999:7:::\n"


def pack(when: str, then: str, title: str = "hostile", rule_id: str = "h.rule") -> str:
    """A rule pack that fits the schema (two examples, both ways) around ``when``/``then``."""
    return (f"pack: hostile\ntitle: {json.dumps(title)}\nrules:\n"
            f"  - id: {rule_id}\n    title: {json.dumps(title)}\n    kind: policy\n"
            f"    when: {when}\n    then: {then}\n    reason: r\n    source: s\n"
            "    examples:\n      - {args: [], fires: true}\n      - {args: [], fires: false}\n")


def nested_all(depth: int) -> str:
    """A condition of ``depth`` nested ``all`` lists (JSON flow style, valid YAML)."""
    return '{"all": [' * depth + '{"eq": {"path": "facts.tp_size", "value": 1}}' + "]}" * depth


@dataclass(frozen=True)
class Case:
    """One catalogue row: an id, the command line, the files it needs, extra environment."""

    id: str
    args: tuple[str | bytes, ...]
    files: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)


def _c(case_id: str, *args: str | bytes, files: dict[str, Any] | None = None,
       env: dict[str, str] | None = None) -> Case:
    return Case(case_id, tuple(args), files or {}, env or {})


TRT = ("resolve", "--dialect", "trtllm", "--extra-llm-api-options")

CLI_CASES: tuple[Case, ...] = (
    # -- 2. plausible numbers that would exhaust memory ------------------------------------
    _c("max-bs-decode-1e11", "resolve", "--cuda-graph-max-bs-decode", "100000000000"),
    _c("max-bs-prefill-1e11", "resolve", "--cuda-graph-max-bs-prefill", "100000000000"),
    _c("chunked-prefill-1e11", "resolve", "--chunked-prefill-size", "100000000000"),
    _c("chunked-prefill-2^63", "resolve", "--chunked-prefill-size", str(2**63)),
    _c("chunked-prefill-10^400", "resolve", "--chunked-prefill-size", "1" + "0" * 400),
    _c("deployment-chunked-1e11", "resolve", "--deployment", "{d}/dep.yaml",
       files={"dep.yaml": "chunked_prefill_size: 100000000000\n"}),
    _c("json-max-bs-1e11-float", "resolve", "--cuda-graph-config", '{"decode":{"max_bs":1e11}}'),
    _c("json-max-bs-1e11", "resolve", "--cuda-graph-config",
       '{"decode":{"max_bs":100000000000}}'),
    _c("json-max-bs-1e11-nopad", "resolve", "--disable-cuda-graph-padding",
       "--cuda-graph-config", '{"decode":{"max_bs":100000000000}}'),
    _c("cpu-torch-compile-1e11", "resolve", "--device", "cpu", "--torch-compile-max-bs",
       "100000000000"),
    _c("vllm-tokens-1e11", "resolve", "--dialect", "vllm", "--max-num-batched-tokens",
       "100000000000", "-cc.max_cudagraph_capture_size=100000000000"),
    _c("trtllm-max-batch-1e11", *TRT, "{d}/t.yaml",
       files={"t.yaml": "cuda_graph_config: {max_batch_size: 100000000000, "
                        "enable_padding: true}\n"}),
    _c("trtllm-max-batch-inf", *TRT, "{d}/t.yaml",
       files={"t.yaml": "cuda_graph_config: {max_batch_size: .inf, enable_padding: true}\n"}),
    _c("rule-sets-max-bs-1e11", "resolve", "--rules", "{d}/p.yaml",
       files={"p.yaml": pack('{eq: {path: facts.tp_size, value: 1}}',
                             "[{set: {key: decode.max_bs, value: 100000000000}}]")}),
    _c("explain-max-bs-decode-1e11", "explain", "--cuda-graph-max-bs-decode", "100000000000"),
    _c("explain-json-max-bs-1e11", "explain", "-o", "json", "--cuda-graph-config",
       '{"decode":{"max_bs":100000000000}}'),
    # -- 3. YAML alias bombs ---------------------------------------------------------------
    _c("alias-bomb-config", "resolve", "--cuda-graph-config", "{d}/bomb.yaml",
       files={"bomb.yaml": ALIAS_BOMB}),
    _c("alias-bomb-deployment", "resolve", "--deployment", "{d}/bomb.yaml",
       files={"bomb.yaml": ALIAS_BOMB}),
    _c("alias-bomb-trtllm", *TRT, "{d}/bomb.yaml", files={"bomb.yaml": ALIAS_BOMB}),
    _c("alias-self", "resolve", "--cuda-graph-config", "{d}/self.yaml",
       files={"self.yaml": SELF_ALIAS}),
    # -- 4. unbounded file inputs ----------------------------------------------------------
    _c("config-dev-zero", "resolve", "--cuda-graph-config", "@/dev/zero"),
    _c("config-dev-urandom", "resolve", "--cuda-graph-config", "@/dev/urandom"),
    _c("config-dev-full", "resolve", "--cuda-graph-config", "@/dev/full"),
    _c("config-symlink-dev-zero", "resolve", "--cuda-graph-config", "@{d}/z.json",
       files={"z.json": ("symlink", "/dev/zero")}),
    _c("deployment-dev-zero", "resolve", "--deployment", "/dev/zero"),
    _c("rules-dev-zero", "resolve", "--rules", "/dev/zero"),
    _c("trtllm-dev-zero", *TRT, "/dev/zero"),
    _c("explain-config-dev-zero", "explain", "--cuda-graph-config", "@/dev/zero"),
    _c("rules-validate-dev-zero", "rules", "validate", "/dev/zero"),
    _c("rules-list-fifo", "rules", "list", "--rules", "{d}/f.yaml", files={"f.yaml": FIFO}),
    _c("config-fifo", "resolve", "--cuda-graph-config", "@{d}/f.json", files={"f.json": FIFO}),
    _c("deployment-fifo", "resolve", "--deployment", "{d}/f.yaml", files={"f.yaml": FIFO}),
    _c("rules-fifo", "resolve", "--rules", "{d}/f.yaml", files={"f.yaml": FIFO}),
    _c("trtllm-fifo", *TRT, "{d}/f.yaml", files={"f.yaml": FIFO}),
    _c("config-directory", "resolve", "--cuda-graph-config", "@{d}/sub", files={"sub": DIR}),
    _c("config-3-mib", "resolve", "--cuda-graph-config", "@{d}/big.json",
       files={"big.json": '{"decode": {}}' + " " * (3 << 20)}),
    # -- 5. tracebacks -----------------------------------------------------------------------
    _c("json-1000-deep-config", "resolve", "--cuda-graph-config", DEEP_CONFIG),
    _c("json-1000-deep-cc", "resolve", "--dialect", "vllm", "-cc", DEEP_JSON),
    _c("json-1000-deep-dotted-cc", "resolve", "--dialect", "vllm",
       "-cc.cudagraph_capture_sizes=" + DEEP_JSON),
    _c("json-1000-deep-speculative", "resolve", "--dialect", "vllm", "--speculative-config",
       '{"a": ' + DEEP_JSON + "}"),
    _c("json-1000-deep-rule-pack", "resolve", "--rules", "{d}/deep.json",
       files={"deep.json": DEEP_JSON}),
    _c("inline-300-chars", "resolve", "--cuda-graph-config", "x" * 300),
    _c("int-5000-digits-json", "resolve", "--cuda-graph-config",
       '{"decode": {"max_bs": ' + BIG_INT + "}}"),
    _c("int-5000-digits-yaml", "resolve", "--cuda-graph-config", "{d}/i.yaml",
       files={"i.yaml": "decode:\n  max_bs: " + BIG_INT + "\n"}),
    _c("int-5000-digits-flag", "resolve", "--cuda-graph-max-bs-decode", BIG_INT),
    _c("file-not-utf8", "resolve", "--cuda-graph-config", "@{d}/l1.json",
       files={"l1.json": b'{"decode": {"backend": "\xe9"}}'}),
    _c("file-utf16", "resolve", "--deployment", "{d}/u16.yaml",
       files={"u16.yaml": "tp_size: 2\n".encode("utf-16")}),
    _c("prefill-max-context-400-digits", "resolve", "--cuda-graph-prefill-max-context",
       "9" * 400),
    _c("yaml-key-is-list", "resolve", "--cuda-graph-config", "{d}/k.yaml",
       files={"k.yaml": "decode:\n  ? [a, b]\n  : 1\n"}),
    _c("trtllm-torch-compile-list", *TRT, "{d}/t.yaml",
       files={"t.yaml": "torch_compile_config: [1]\n"}),
    _c("trtllm-capture-num-tokens-int", *TRT, "{d}/t.yaml",
       files={"t.yaml": "torch_compile_config: {enable_piecewise_cuda_graph: true, "
                        "capture_num_tokens: 7}\n"}),
    _c("rule-clamp-max-ref-string", "resolve", "--rules", "{d}/p.yaml",
       files={"p.yaml": pack("{eq: {path: facts.tp_size, value: 1}}",
                             "[{clamp: {key: decode.max_bs, max_ref: facts.model_arch}}]")}),
    _c("rule-clamp-backend", "resolve", "--rules", "{d}/p.yaml",
       files={"p.yaml": pack("{eq: {path: facts.tp_size, value: 1}}",
                             "[{clamp: {key: decode.backend, max: 4}}]")}),
    _c("rule-clamp-list", "resolve", "--rules", "{d}/p.yaml",
       files={"p.yaml": pack("{eq: {path: facts.tp_size, value: 1}}",
                             "[{clamp: {key: decode.bs, max: 4}}]")}),
    _c("rule-lt-ref-other-type", "resolve", "--rules", "{d}/p.yaml",
       files={"p.yaml": pack("{lt: {path: facts.tp_size, ref: facts.model_arch}}",
                             "[{warn: true}]")}),
    _c("rule-set-null", "resolve", "--rules", "{d}/p.yaml",
       files={"p.yaml": pack("{eq: {path: facts.tp_size, value: 1}}",
                             "[{set: {key: decode.max_bs, value: null}}]")}),
    _c("rule-2000-nested-all", "resolve", "--rules", "{d}/p.yaml",
       files={"p.yaml": pack(nested_all(2000), "[{warn: true}]")}),
    _c("rules-validate-clamp-max-ref-string", "rules", "validate", "{d}/p.yaml",
       files={"p.yaml": pack("{eq: {path: facts.tp_size, value: 1}}",
                             "[{clamp: {key: decode.max_bs, max_ref: facts.model_arch}}]")}),
    _c("rules-validate-2000-nested-all", "rules", "validate", "{d}/p.yaml",
       files={"p.yaml": pack(nested_all(2000), "[{warn: true}]")}),
    _c("markup-in-missing-path", "resolve", "--cuda-graph-config", "@{d}/x[/red]/c.json"),
    # -- 6. accepted but misread -------------------------------------------------------------
    _c("cc-capture-size-true", "resolve", "--dialect", "vllm",
       "-cc.max_cudagraph_capture_size=true"),
    _c("speculative-tokens-true", "resolve", "--dialect", "vllm", "--speculative-config",
       '{"num_speculative_tokens": true}'),
    _c("tp-size-arabic-digit", "resolve", "--tp-size", "\u0668"),
    _c("tp-size-fullwidth", "resolve", "--tp-size", "\uff16\uff14"),
    _c("tp-size-underscore", "resolve", "--tp-size", "1_0"),
    _c("gpu-memory-inf", "resolve", "--gpu-memory-gib", "inf", "-o", "json"),
    _c("gpu-memory-nan", "resolve", "--gpu-memory-gib", "nan", "-o", "json"),
    _c("deployment-memory-inf", "resolve", "--deployment", "{d}/m.yaml",
       files={"m.yaml": "gpu_memory_gib: .inf\n"}),
    _c("model-arch-not-utf8", "resolve", "--model-arch", b"\xff", "-o", "json"),
    _c("yaml-tag-on-mapping", "resolve", "--cuda-graph-config", "{d}/tag.yaml",
       files={"tag.yaml": "decode: !foo {max_bs: 8}\n"}),
    _c("yaml-python-tag", "resolve", "--cuda-graph-config", "{d}/py.yaml",
       files={"py.yaml": "decode: !!python/object/apply:os.system [echo hi]\n"}),
    _c("rule-moves-backend-up", "resolve", "--rules", "{d}/p.yaml",
       files={"p.yaml": pack("{eq: {path: facts.tp_size, value: 1}}",
                             "[{set: {key: decode.backend, value: full}}]")}),
    # -- 8. smaller ------------------------------------------------------------------------
    _c("yaml-nul-byte", "resolve", "--cuda-graph-config", "{d}/nul.yaml",
       files={"nul.yaml": "decode:\n  max_bs: 8\0\n"}),
    _c("file-name-with-newline", "resolve", "--cuda-graph-config", "@{d}/a\nb.json"),
    _c("mistyped-command", "resolv"),
    _c("mistyped-rules-command", "rules", "lsit"),
    _c("typer-unknown-option", "schema", "--bogus"),
    # One argv string is capped at 128 KiB by the kernel; a file carries a longer value.
    _c("bad-value-120-kb", "resolve", "--cuda-graph-backend-decode", "y" * 120_000),
    _c("unknown-flag-120-kb", "resolve", "--" + "z" * 120_000),
    _c("bad-value-1500-kb-in-file", "resolve", "--cuda-graph-config", "@{d}/long.json",
       files={"long.json": '{"decode": {"backend": "' + "y" * 1_500_000 + '"}}'}),
    _c("secret-file-content", "resolve", "--cuda-graph-config", "@{d}/shadow",
       files={"shadow": SECRET}),
    _c("secret-file-deployment", "resolve", "--deployment", "{d}/shadow",
       files={"shadow": SECRET}),
    _c("yaml-100k-keys", "resolve", "--deployment", "{d}/keys.yaml",
       files={"keys.yaml": "".join(f"k{i}: {i}\n" for i in range(100_000))}),
    _c("rule-pack-1500-rules", "resolve", "--rules", "{d}/many.yaml",
       files={"many.yaml": "pack: many\ntitle: m\nrules:\n" + "".join(
           f"  - {{id: r{i}, title: t, kind: policy, when: {{eq: {{path: facts.tp_size, "
           f"value: 1}}}}, then: [{{warn: true}}], reason: r, source: s, examples: []}}\n"
           for i in range(1500))}),
)
