"""The ``cgconfig`` entry point.

``resolve`` and ``explain`` are dispatched straight to their handlers: they parse argv with
cgconfig's own flag table (a whole SGLang launch line included), and skipping typer and rich
keeps a launch script's call close to the cost of importing pydantic. Every other command,
and top-level help, goes through the typer app in :mod:`cgconfig.cli.app`.
"""

from __future__ import annotations

import sys

FAST_COMMANDS = ("resolve", "explain")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script exits with it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "__complete":
        from cgconfig.cli.complete import run_complete

        return run_complete(args[1:])
    if args and args[0] in FAST_COMMANDS and not ({"--help", "-h"} & set(args)):
        if args[0] == "resolve":
            from cgconfig.cli.resolve_cmd import run_resolve

            return run_resolve(args[1:])
        from cgconfig.cli.explain_cmd import run_explain

        return run_explain(args[1:])
    if args and args[0] in FAST_COMMANDS:
        from cgconfig.cli.help import print_command_help

        print_command_help(args[0])
        return 0
    from cgconfig.cli.app import run_app

    return run_app(args)


def console_main() -> None:
    """Console-script wrapper: exit with :func:`main`'s code."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # `cgconfig explain --all | head`: the reader left; that is not an error of ours.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 0
    raise SystemExit(code)


if __name__ == "__main__":
    console_main()
