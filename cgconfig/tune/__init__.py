"""Choose capture sizes from the batch sizes a server really sees (``cgconfig tune``).

The optimiser (:mod:`.optimize`), the histogram and cost file formats (:mod:`.histogram`,
:mod:`.cost`) and the engines' log converters (``cgconfig/engines/sglang/tune_log.py``,
``cgconfig/engines/vllm/tune_log.py``) import neither torch nor pydantic. :mod:`.plan_tuner`
runs them through the resolver.
"""

from __future__ import annotations

from cgconfig.tune.histogram import Histogram
from cgconfig.tune.optimize import Metrics, StepCost, best_sizes, evaluate, fewest_for_waste

__all__ = ["Histogram", "Metrics", "StepCost", "best_sizes", "evaluate", "fewest_for_waste"]
