"""Record the ``server_args=`` line each SGLang release logs at start-up, from its own code
(``tests/data/server_args/sglang.jsonl``), for ``tests/verify/test_args_release.py``.

Run by hand with the oracle's interpreter, never in CI::

    ORACLE_DIR=/path/to/oracle /path/to/oracle/vendor/venv/bin/python \\
        tests/fidelity/record_server_args.py 0.5.13 0.5.14 0.5.18 ... > tests/data/server_args/sglang.jsonl

For each release it builds ``ServerArgs`` with the release's ``prepare_server_args`` for one
plain line (``--model-path M --tp-size 2``) and prints what that release's
``entrypoints/engine.py`` logs: ``_server_args_for_logging(server_args)`` where it exists
(0.5.23), else ``server_args.resolved_dict()`` (0.5.19-0.5.22), else the dataclass repr
(``f"{server_args=}"``, 0.5.18 and older). The model folder is replaced by
``/models/Llama-3-8B`` so the file names no path of this machine.
"""

from __future__ import annotations

import json
import os
import sys


def record(release: str) -> dict[str, str]:
    sys.path.insert(0, os.environ["ORACLE_DIR"])
    import sglang_oracle as oracle  # the oracle folder's harness (hardware stubbed only)

    oracle.select_version(release)
    oracle._setup()
    # 0.5.8's quantization utils register torch.compile fakes of sgl_kernel ops at import,
    # which the stubbed sgl_kernel lacks: the harness's own tolerance (registrations only)
    import sglang_oracle_legacy

    sglang_oracle_legacy._tolerate_missing_sgl_kernel_ops()
    import sglang.srt.server_args as server_args_module

    model = oracle._model_dir("llama", None)
    args = server_args_module.prepare_server_args(["--model-path", model, "--tp-size", "2"])
    try:
        import sglang.srt.entrypoints.engine as engine
    except Exception:  # heavy imports absent on the oracle; the dict or repr is then printed
        engine = None
    if engine is not None and hasattr(engine, "_server_args_for_logging"):
        text = f"server_args={engine._server_args_for_logging(args)}"
    elif hasattr(args, "resolved_dict"):
        text = f"server_args={args.resolved_dict()}"
    else:
        text = f"{args=}".replace("args=", "server_args=", 1)
    return {"release": release, "line": text.replace(model, "/models/Llama-3-8B")}


if __name__ == "__main__":
    # One release per process: each release's sglang package is imported under one name.
    if len(sys.argv) == 2:
        print(json.dumps(record(sys.argv[1])))
    else:
        import subprocess

        for release in sys.argv[1:]:
            subprocess.run([sys.executable, __file__, release], check=True)
