"""Every bound cgconfig puts on its input, as named constants and small checks.

A value far above any real deployment is an input error (exit 2, naming the limit), checked
before any work scales with it: a size list is never built to a batch of 10^11, a file is never
read past its cap, a YAML alias never expands without bound. The README's "Limits" section
lists the same numbers; ``tests/hostile`` proves each one.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from cgconfig.constants import MAX_CAPTURE_SIZE
from cgconfig.errors import MAX_MESSAGE_CHARS, InputError

#: Largest input file read (config, deployment, TensorRT-LLM options, rule pack), in bytes.
MAX_FILE_BYTES = 2 * 1024 * 1024

#: Largest decode batch, in requests (far above any GPU's request pool; vLLM's and
#: TensorRT-LLM's batch sizes count the same way).
MAX_DECODE_BATCH = 65_536

#: Largest prefill size or token budget, in tokens (chunked-prefill size, prefill max_bs,
#: vLLM's max_num_batched_tokens and capture sizes).
MAX_PREFILL_TOKENS = MAX_CAPTURE_SIZE

#: Largest context or sequence length, in tokens.
MAX_CONTEXT_TOKENS = 1 << 32

#: Largest parallel size (tensor, pipeline, data, context parallel).
MAX_PARALLEL_SIZE = 65_536


class Bound(NamedTuple):
    """The largest value a size-like key takes, and what it counts (for the error line)."""

    limit: int
    unit: str


REQUESTS = Bound(MAX_DECODE_BATCH, "requests per decode batch")
TOKENS = Bound(MAX_PREFILL_TOKENS, "prefill tokens")
CONTEXT = Bound(MAX_CONTEXT_TOKENS, "tokens of context")
PARALLEL = Bound(MAX_PARALLEL_SIZE, "ranks")

# Each graph key declares its bound next to its type (``cgconfig/fields/config.py``); the block
# between the markers is written from those declarations by ``python -m cgconfig.fields.generate``
# (a test fails while it is stale, or while a numeric key declares no bound). Do not edit it.
# key-bounds:begin
KEY_BOUNDS: dict[str, Bound] = {
    "decode.max_bs": REQUESTS,
    "decode.bs": REQUESTS,
    "prefill.max_bs": TOKENS,
    "prefill.bs": TOKENS,
    "prefill.max_context_size": CONTEXT,
    "prefill.max_seq_len": CONTEXT,
    "prefill.full_prefill_max_req": REQUESTS,
    "prefill.full_prefill_prefix_chunk_tokens": TOKENS,
    "options.torch_compile_max_bs": REQUESTS,
}
# key-bounds:end

#: Deployment facts' bounds.
FACT_BOUNDS: dict[str, Bound] = {
    "facts.chunked_prefill_size": TOKENS, "facts.max_running_requests": REQUESTS,
    "facts.speculative_num_draft_tokens": REQUESTS, "facts.context_length": CONTEXT,
    "facts.model_context_length": CONTEXT,
    "facts.model_kv_heads": Bound(1 << 20, "heads"), "facts.vision_num_layers": Bound(1 << 20, "layers"),
    "facts.vision_hidden_size": Bound(1 << 24, "hidden units"),
    "facts.model_num_experts": Bound(1 << 20, "experts"),
    "facts.tp_size": PARALLEL, "facts.pp_size": PARALLEL, "facts.dp_size": PARALLEL,
    "facts.attn_cp_size": PARALLEL, "facts.dcp_size": PARALLEL, "facts.moe_dp_size": PARALLEL,
    "facts.gpu_memory_gib": Bound(1 << 20, "GiB"),
}

#: Dotted key → bound for every size-like config key, option and deployment fact.
SIZE_BOUNDS: dict[str, Bound] = {**KEY_BOUNDS, **FACT_BOUNDS}

#: Largest batch size a histogram holds, and a server log's step is counted at (decode requests
#: or prefill tokens: above any real GPU's): ``cgconfig histogram`` (SGLang and vLLM logs),
#: ``cgconfig verify``'s step counts and ``cgconfig tune --histogram`` share it.
MAX_STEP_SIZE = 1 << 20

#: Largest step count per size in a histogram (a server at 10,000 steps/s runs 3,000 years to
#: reach it): what ``cgconfig histogram`` writes and ``cgconfig tune`` reads, one bound.
MAX_STEP_COUNT = 10**15

#: Deepest nesting of lists/objects in a JSON or YAML document, and of rule conditions.
MAX_NESTING_DEPTH = 64

#: Most nodes a YAML document may build, aliases counted each time they are expanded.
MAX_DOCUMENT_NODES = 50_000

#: Most rules in one rule pack.
MAX_RULES_PER_PACK = 1_000

#: ``cgconfig rules validate``: most examples one rule may carry, most in one pack, and most
#: example runs × rules in the pack (each example is a whole resolution under every rule of the
#: pack: 4,096 keeps the worst pack within about 3 s of CPU).
MAX_EXAMPLES_PER_RULE = 16
MAX_EXAMPLES_PER_PACK = 256
MAX_EXAMPLE_WORK = 4_096

#: Most characters of an input an error line quotes; longer input is cut with "…".
MAX_QUOTE_CHARS = 80

#: Longest error line (the error's own home is :mod:`cgconfig.errors`, which this imports).
MAX_ERROR_LINE_CHARS = MAX_MESSAGE_CHARS

#: Most digits in an integer written as text (Python's own int-string limit is 4,300).
MAX_INT_DIGITS = 30


def quote(value: Any, limit: int = MAX_QUOTE_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters, one line, for an error message."""
    if isinstance(value, str) and len(value) > 4 * limit:
        value = value[: 4 * limit]  # repr of a 10 MB string is not built just to be cut
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def is_name(value: Any) -> bool:
    """Whether ``value`` looks like a key someone meant (an int index, or a short name)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and _NAME.fullmatch(value) is not None)


def quote_key(key: Any) -> str:
    """A key for an error line: quoted when it looks like a name, else only described, so a
    file that is not a config at all (``/etc/shadow``) never has its content echoed."""
    if is_name(key):
        return repr(key)
    return f"<a {type(key).__name__} key of {len(str(key)[:10_000])} characters>"


def short(text: str, limit: int = MAX_QUOTE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with line breaks escaped (for names, paths)."""
    text = text[: 4 * limit].replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_decode_batch(value: Any, where: str) -> None:
    """A decode batch size (requests) within :data:`MAX_DECODE_BATCH`."""
    _check_bound(value, MAX_DECODE_BATCH, "requests per decode batch", where)


def check_prefill_tokens(value: Any, where: str) -> None:
    """A prefill token count within :data:`MAX_PREFILL_TOKENS`."""
    _check_bound(value, MAX_PREFILL_TOKENS, "prefill tokens", where)


def check_size_value(key: str, value: Any, where: str) -> None:
    """A value for a dotted key (``decode.max_bs``, ``facts.chunked_prefill_size``) within
    the key's bound in :data:`SIZE_BOUNDS`; keys without a bound pass."""
    bound = SIZE_BOUNDS.get(key)
    if bound is None:
        return
    limit, unit = bound
    for item in value if isinstance(value, list) else [value]:
        _check_bound(item, limit, unit, where)


def _check_bound(value: Any, limit: int, unit: str, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return  # type errors are reported by the field checks, with the field's wording
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"expected a finite number, got {value!r}", where=where)
    if value > limit:
        shown = str(value) if value < 10**12 else f"about 10^{math.floor(math.log10(value))}"
        raise InputError(f"{shown} is above the limit of {limit} {unit}", where=where,
                         hint="see 'Limits' in the README")


def check_finite(value: float, where: str) -> float:
    """A float that is neither infinite nor NaN."""
    if not math.isfinite(value):
        raise InputError(f"expected a finite number, got {value!r}", where=where)
    return value


def check_int_text(text: str, where: str) -> None:
    """Integer text short enough to convert (never hits Python's int-string limit)."""
    digits = text.strip().lstrip("+-")
    if len(digits) > MAX_INT_DIGITS:
        raise InputError(f"integer with {len(digits)} digits is too long (at most "
                         f"{MAX_INT_DIGITS})", where=where)


def check_depth(depth: int, where: str) -> None:
    """A nesting depth within :data:`MAX_NESTING_DEPTH`."""
    if depth > MAX_NESTING_DEPTH:
        raise InputError(f"nested more than {MAX_NESTING_DEPTH} levels deep", where=where)


def check_file_size(size: int, where: str) -> None:
    """A file size within :data:`MAX_FILE_BYTES`."""
    if size > MAX_FILE_BYTES:
        raise InputError(f"file is larger than the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit "
                         f"({size} bytes)", where=where)


def check_examples(per_rule: dict[str, int], where: str) -> None:
    """A pack's examples (rule id → count) within the ``rules validate`` bounds."""
    worst = max(per_rule, key=lambda r: per_rule[r], default=None)
    if worst is not None and per_rule[worst] > MAX_EXAMPLES_PER_RULE:
        raise InputError(f"rule {quote(worst)} has {per_rule[worst]} examples (at most "
                         f"{MAX_EXAMPLES_PER_RULE} per rule)", where=where)
    total = sum(per_rule.values())
    if total > MAX_EXAMPLES_PER_PACK:
        raise InputError(f"{total} examples in one pack (at most {MAX_EXAMPLES_PER_PACK})",
                         where=where, hint="split the pack into smaller ones")
    if total * len(per_rule) > MAX_EXAMPLE_WORK:
        raise InputError(f"{total} examples × {len(per_rule)} rules is more than "
                         f"{MAX_EXAMPLE_WORK} rule runs", where=where,
                         hint="split the pack into smaller ones, or give fewer examples")


def check_rule_count(count: int, where: str) -> None:
    """A rule pack with at most :data:`MAX_RULES_PER_PACK` rules."""
    if count > MAX_RULES_PER_PACK:
        raise InputError(f"{count} rules in one pack (at most {MAX_RULES_PER_PACK})",
                         where=where)

#: Deployment files (``--from FILE``): most statements and words read from one shell script
#: (a launch script has tens), most YAML documents in one file (a manifest has a handful;
#: Helm's rendered output a few hundred), and most launches one file may name.
MAX_SCRIPT_STATEMENTS = 10_000
MAX_SCRIPT_WORDS = 100_000
MAX_DOCUMENTS = 1_000
MAX_LAUNCHES = 256
