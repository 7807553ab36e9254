"""``python -m cgconfig.cli``."""

from cgconfig.cli.main import console_main

console_main()
