"""Register ToyLLM, then run one cgconfig command: ``python run_cli.py ARGS...`` (what a
third-party plug-in does before cgconfig reads its lists)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cgconfig.line.registry import Engine, register

register(Engine("toyllm", "ToyLLM", "toyllm", "toyllm", "argparse",
                scripts=(("toyllm", "serve"), ("toyctl", "serve", "api_server")),
                distributions=("toyllm",), image_names=("toyllm",), env_prefixes=("TOYLLM_",),
                series=2, release_from_tags=False))

from cgconfig.cli.main import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
