"""The Python API in a launch script: resolve from argv, from a dict, from a config object.

    python examples/api_resolve.py
"""

from __future__ import annotations

import json

from cgconfig import CudaGraphConfig, DecodeConfig, resolve_args, resolve_dict


def main() -> None:
    """Resolve three ways and print what each would capture."""
    # 1. From a command line (a whole SGLang launch line works too).
    plan = resolve_args(["--tp-size", "8", "--gpu-memory-gib", "141",
                         "--cuda-graph-max-bs-decode", "128"])
    print("argv:   decode sizes", plan.capture_sizes("decode")[-3:], "prefill",
          plan.backend("prefill"))

    # 2. From a dict: every key given is explicit and locked.
    plan = resolve_dict({"decode": {"bs": [1, 2, 4, 8]}, "prefill": {"backend": "disabled"}},
                        facts={"gpu_memory_gib": 80})
    print("dict:   locked", plan.locked)

    # 3. From a config object: only the fields you set are locked.
    config = CudaGraphConfig(decode=DecodeConfig(max_bs=64))
    plan = resolve_dict(config, facts={"disaggregation_mode": "prefill"})
    print("object: locked", plan.locked, "decode", plan.backend("decode"))

    # The plan is a versioned, deterministic JSON document.
    print(json.loads(plan.to_json())["schema_version"])


if __name__ == "__main__":
    main()
