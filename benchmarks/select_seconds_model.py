"""Score capture-time model forms by leave-one-model-out cross-validation on the FIT samples
of ``fit_cost.py`` only (issue #34; no held-out sample is read).

Each group (one model × TP of one H200 batch, one public boot, one upb-cn model series) is left
out in turn; the rest fit the form; the error is max(p/m, m/p) on the left-out captures.
``lin`` is the shipped form (``t0 + t·graphs·layers/32·tp^e``, per-class e); the others are
power laws ``t_class · graphs^g · (layers/32)^l · (max size/256)^b · (hidden/4096)^h · tp^e``
with the named exponents shared (g, L, b, h, t). Printed: n, median error %, p90 ratio, mean
log error. Result and what was done with it: ``benchmarks/RESULTS.md`` (issue #34, run 5).

Usage: ``python benchmarks/select_seconds_model.py``
"""
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit_cost

from cgconfig.cost import fit

FORMS = ("g", "gL", "gLt", "gLb", "gLh", "gLbt", "gLht", "gLbh", "gLbht", "gb", "gbt", "gt")
RIDGE = 0.05


def fit_samples() -> list[fit.Sample]:
    """The timed samples ``fit_cost.py`` fits on (no held-out one)."""
    boots, _ = fit_cost.boot_samples()
    return [s for use, s in boots + fit_cost.runtime_samples() if use == "fit" and s.seconds]


def group(s: fit.Sample) -> str:
    """One model's captures (they are not independent) form one group."""
    if s.ident.startswith("h200"):
        return " ".join(s.ident.split()[:-2])
    return s.ident.rsplit("-", 1)[0] if s.ident.startswith("upb-") else s.ident


def features(s: fit.Sample, form: str) -> list[float]:
    """The log features a power-law form uses."""
    table = {"g": math.log(s.graphs), "L": math.log(s.layers / 32),
             "b": math.log(s.max_size / 256), "h": math.log(s.hidden / 4096),
             "t": math.log(max(s.tp, 1))}
    return [table[c] for c in form]


def fit_log(train: list[fit.Sample], form: str) -> tuple[list[float], list[str]]:
    """Weighted least squares on log seconds, an intercept per class, each class weighing the
    same in total, a ridge of :data:`RIDGE` on the shared exponents."""
    classes = sorted({s.klass for s in train})
    count = {k: sum(1 for s in train if s.klass == k) for k in classes}
    rows = [features(s, form) + [1.0 if s.klass == k else 0.0 for k in classes] for s in train]
    weights = [1 / count[s.klass] for s in train]
    ys = [math.log(s.seconds) for s in train]  # type: ignore[arg-type]
    k, n = len(form), len(rows[0])
    ata = [[sum(w * r[i] * r[j] for r, w in zip(rows, weights, strict=True))
            + (RIDGE if i == j and i < k else 0.0) for j in range(n)] for i in range(n)]
    atb = [sum(w * r[i] * y for r, w, y in zip(rows, weights, ys, strict=True)) for i in range(n)]
    return fit._solve(ata, atb), classes


def predict_log(model: tuple[list[float], list[str]], s: fit.Sample, form: str) -> float | None:
    beta, classes = model
    if s.klass not in classes:
        return None
    k = len(form)
    return math.exp(sum(a * x for a, x in zip(beta[:k], features(s, form), strict=True))
                    + beta[k + classes.index(s.klass)])


def predict_linear(train: list[fit.Sample]) -> dict[str, tuple[float, float, float]]:
    """The shipped form's (t0, t, e) per class."""
    out = {}
    for klass in {s.klass for s in train}:
        members = [s for s in train if s.klass == klass]
        e = fit.fit_tp_exponent(members)
        line = fit.fit_seconds(members, e)
        assert line is not None
        out[klass] = (line[0], line[1], e)
    return out


def score(samples: list[fit.Sample], form: str) -> tuple[int, int, float, float]:
    """Leave-one-group-out errors: n, median %, p90 ratio, mean log error."""
    errors = []
    for name in sorted({group(s) for s in samples}):
        train = [s for s in samples if group(s) != name]
        test = [s for s in samples if group(s) == name]
        if form == "lin":
            lines = predict_linear(train)
            preds = [None if s.klass not in lines else
                     lines[s.klass][0] + lines[s.klass][1] * fit.work(s, lines[s.klass][2])
                     for s in test]
        else:
            model = fit_log(train, form)
            preds = [predict_log(model, s, form) for s in test]
        errors += [fit.ratio_error(p, s.seconds) for p, s in zip(preds, test, strict=True)  # type: ignore[arg-type]
                   if p]
    return (len(errors), round(100 * (statistics.median(errors) - 1)),
            round(fit.percentile(errors, 0.9), 2),
            round(statistics.fmean(math.log(e) for e in errors), 3))


def main() -> int:
    samples = fit_samples()
    print(f"{len({group(s) for s in samples})} groups, {len(samples)} timed fit samples")
    for form in ("lin", *FORMS):
        n, median, p90, mean_log = score(samples, form)
        print(f"{form:6} n={n} median {median} % p90 {p90}x mean log error {mean_log}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
