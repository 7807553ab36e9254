"""cgconfig command line (typer + rich)."""
