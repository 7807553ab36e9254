"""Score graph-memory model forms by leave-one-model-out cross-validation on the FIT samples
of ``fit_cost.py`` only (issue #34; no held-out sample is read: run 6 is not loaded).

Fit data: the H200 runs 1-5 (every capture but each process's first model) and the public
boots marked ``fit``. Each group (one model, all its TP sizes and batches; one public boot) is
left out in turn; the rest fit the form; the error is max(p/m, m/p) on the left-out captures.

Every form is a power law ``m_class · Π feature ** exponent`` fitted as ``fit.fit_exponents``
does (weighted least squares on log memory, an intercept per class, each class weighing the
same in total, a ridge of ``fit.RIDGE`` toward 1 for graphs and 0 for the rest), then each
class's ``m`` is the median of its samples' ratios (``fit.fit_memory``). Features: g graphs,
b largest size / 256, h hidden per rank / 4096, L layers / 32, v vocabulary / 128000 (decode
only), i MLP width / hidden / 3.5, d head size / 128. Scope: ``all`` (one exponent set, v decode
only: the shipped form is ``all:gbhLv``), ``phase`` (one set per decode / prefill), ``family``
(one set per phase/backend: decode/full, decode/breakable, prefill/breakable; the engines'
classes take their family's set).

Printed: n, median error %, p90 ratio, mean log error, then the per-family breakdown of the
shipped and the chosen form. Result: ``benchmarks/RESULTS.md`` (issue #34, run 6).

Usage: ``python benchmarks/select_memory_model.py``
"""
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit_cost

from cgconfig.cost import fit

FORMS = ("all:gbhLv", "phase:gbhLv", "family:gbhLv", "family:gbhLvi", "family:gbhLvd",
         "family:gbhLvid", "family:gbLv", "family:gbhv", "phase:gbhLvid", "all:gbhLvid",
         "phase:gbhL+1", "phase:gbhL+2", "phase:gbhLv+1", "family:gbhL+1", "family:gbhL+2",
         "phase:gbhL+1e", "family:gbhL+1e")
LOGITS_IN_GRAPH = fit_cost.LOGITS_IN_GRAPH
"""Engines whose decode graphs end in every row's logits (``+ke`` forms add the buffers to
these only; ``fit_cost.LOGITS_IN_GRAPH`` says why)."""
TOLERANCE = 0.01
"""The form chosen is the one with the fewest exponents whose mean log error is within this of
the lowest (a smaller gain is noise between folds); rule fixed before the first score."""


ENGINE_ONLY = [False]
"""Set while a ``+ke`` form is scored."""


def logits_mib(s: fit.Sample) -> float:
    """A decode graph's largest bf16 logits buffer, largest size × vocabulary × 2 bytes."""
    if ENGINE_ONLY[0] and s.klass.split("/")[0] not in LOGITS_IN_GRAPH:
        return 0.0
    return s.max_size * s.vocab * 2 / 2**20 if s.klass.split("/")[1] == "decode" else 0.0


def split_form(form: str) -> tuple[str, str, float]:
    """(scope, feature letters, additive logits multiple k): ``+k`` forms predict
    ``m·Π… + k · logits_mib`` (the power law fitted on what the logits leave)."""
    head, _, k = form.partition("+")
    scope, letters = head.split(":")
    return scope, letters, float(k.rstrip("e") or 0)


def rest(s: fit.Sample, k: float) -> float:
    """Memory left after ``k`` logits buffers (at least a tenth of the measurement)."""
    return max(s.memory_mib - k * logits_mib(s), 0.1 * s.memory_mib)  # type: ignore[operator]


def n_exponents(form: str) -> int:
    scope, letters, k = split_form(form)
    return len(letters) * {"all": 1, "phase": 2, "family": 3}[scope] + (k > 0)


def fit_samples() -> list[fit.Sample]:
    """The memory samples ``fit_cost.py`` fits on (no held-out one)."""
    boots, _ = fit_cost.boot_samples()
    return [s for use, s in boots + fit_cost.runtime_samples()
            if use == "fit" and s.memory_mib and s.memory_mib > 0]


def group(s: fit.Sample) -> str:
    """One model's captures, over batches and TP sizes, form one group."""
    if s.ident.startswith("h200"):
        words = s.ident.split()
        return words[2] if words[1] in ("hf", "hf4", "hf5") else words[1]
    return s.ident


def family(s: fit.Sample) -> str:
    return "/".join(s.klass.split("/")[1:])


def scope_key(s: fit.Sample, scope: str) -> str:
    return {"all": "all", "phase": s.klass.split("/")[1], "family": family(s)}[scope]


def features(s: fit.Sample, letters: str) -> list[float]:
    decode = s.klass.split("/")[1] == "decode"
    table = {"g": math.log(s.graphs), "b": math.log(s.max_size / 256),
             "h": math.log(s.hidden / 4096), "L": math.log(s.layers / 32),
             "v": math.log(s.vocab / 128000) if decode else 0.0,
             "i": math.log(s.mlp_ratio / 3.5), "d": math.log(s.head_dim / 128)}
    return [table[c] for c in letters]


def fit_form(train: list[fit.Sample], form: str) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Exponents per scope key and ``m`` per class."""
    scope, letters, add = split_form(form)
    k = len(letters)
    prior = [1.0 if c == "g" else 0.0 for c in letters]
    exps: dict[str, list[float]] = {}
    for key in sorted({scope_key(s, scope) for s in train}):
        part = [s for s in train if scope_key(s, scope) == key]
        classes = sorted({s.klass for s in part})
        count = {c: sum(1 for s in part if s.klass == c) for c in classes}
        n = k + len(classes)
        ata = [[0.0] * n for _ in range(n)]
        atb = [0.0] * n
        for s in part:
            row = features(s, letters) + [1.0 if s.klass == c else 0.0 for c in classes]
            w, y = 1.0 / count[s.klass], math.log(rest(s, add))
            for i in range(n):
                atb[i] += w * row[i] * y
                for j in range(n):
                    ata[i][j] += w * row[i] * row[j]
        for i in range(k):
            ata[i][i] += fit.RIDGE
            atb[i] += fit.RIDGE * prior[i]
        exps[key] = fit._solve(ata, atb)[:k]
    per: dict[str, list[float]] = {}
    for s in train:
        shape = math.exp(sum(a * x for a, x in zip(exps[scope_key(s, scope)],
                                                   features(s, letters), strict=True)))
        per.setdefault(s.klass, []).append(rest(s, add) / shape)
    return exps, {c: statistics.median(v) for c, v in per.items()}


def predict(model: tuple[dict[str, list[float]], dict[str, float]], s: fit.Sample,
            form: str) -> float | None:
    exps, m = model
    scope, letters, add = split_form(form)
    key = scope_key(s, scope)
    if s.klass not in m or key not in exps:
        return None
    return m[s.klass] * math.exp(sum(a * x for a, x in zip(exps[key], features(s, letters),
                                                           strict=True))) + add * logits_mib(s)


def errors(samples: list[fit.Sample], form: str) -> list[tuple[fit.Sample, float]]:
    ENGINE_ONLY[0] = form.endswith("e")
    out = []
    for name in sorted({group(s) for s in samples}):
        train = [s for s in samples if group(s) != name]
        model = fit_form(train, form)
        for s in samples:
            if group(s) == name:
                p = predict(model, s, form)
                if p:
                    out.append((s, fit.ratio_error(p, s.memory_mib)))  # type: ignore[arg-type]
    return out


def line(errs: list[float]) -> str:
    if not errs:
        return "n=0"
    return (f"n={len(errs)} median {100 * (statistics.median(errs) - 1):.0f} % "
            f"p90 {fit.percentile(errs, 0.9):.2f}x "
            f"mean log error {statistics.fmean(math.log(e) for e in errs):.3f}")


def main() -> int:
    samples = fit_samples()
    print(f"{len({group(s) for s in samples})} groups, {len(samples)} memory fit samples")
    scores = {}
    for form in FORMS:
        errs = errors(samples, form)
        scores[form] = statistics.fmean(math.log(e) for _, e in errs)
        print(f"{form:16} {line([e for _, e in errs])}")
    lowest = min(scores, key=scores.__getitem__)
    best = min((f for f in FORMS if scores[f] <= scores[lowest] + TOLERANCE),
               key=lambda f: (n_exponents(f), scores[f]))
    print(f"lowest mean log error: {lowest}; chosen (fewest exponents within {TOLERANCE}): "
          f"{best}")
    for form in dict.fromkeys(("all:gbhLv", best)):
        errs = errors(samples, form)
        for eng in ("runtime", "engines"):
            print(f"  {form:16} {eng:18} "
                  + line([e for s, e in errs if (s.klass.startswith("runtime/")) == (eng == "runtime")]))
        for fam in sorted({family(s) for s, _ in errs}):
            print(f"  {form:16} {fam:18} {line([e for s, e in errs if family(s) == fam])}")
    ENGINE_ONLY[0] = best.endswith("e")
    model = fit_form(samples, best)
    for key, values in model[0].items():
        print(f"{best} on all fit samples, {key}: "
              + ", ".join(f"{c}={v:.3f}" for c, v in zip(split_form(best)[1], values,
                                                          strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
