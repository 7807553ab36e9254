"""The ``cgconfig`` entry point.

``resolve`` and ``explain`` are dispatched straight to their handlers: they parse argv with
cgconfig's own flag table (a whole SGLang launch line included), and skipping typer and rich
keeps a launch script's call close to the cost of importing pydantic. Every other command,
and top-level help, goes through the typer app in :mod:`cgconfig.cli.app`.

:func:`console_main` owns the process edges: Ctrl-C is one line and exit 130; a reader that
leaves (``| head``) is a quiet success; a closed or full stdout is one line and exit 2; output
is never written in an encoding the terminal cannot take.
"""

from __future__ import annotations

import os
import sys

FAST_COMMANDS = ("resolve", "explain")


def _argv_error(args: list[str]) -> int | None:
    """One line and exit 2 for an argument no command could take (a NUL byte, or bytes that
    are not UTF-8, which Python hands over as surrogates). Mistyped commands are the typer
    app's (:func:`cgconfig.cli.output.usage_error`)."""
    from cgconfig.cli.output import asks_json, fail
    from cgconfig.errors import InputError
    from cgconfig.limits import quote

    fmt = "json" if asks_json(args) else "table"  # the output contract holds here too
    for index, token in enumerate(args):
        if "\0" in token:
            return fail(InputError("an argument cannot contain a NUL byte",
                                   where=f"argument {index + 1}"), fmt)
        try:
            token.encode("utf-8")
        except UnicodeEncodeError:
            return fail(InputError(f"argument {quote(token)} is not valid UTF-8",
                                   where=f"argument {index + 1}"), fmt)
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script exits with it).

    Everything the command writes to stdout and stderr passes :mod:`cgconfig.terminal`'s
    escaper: text from input files never reaches the terminal as control codes."""
    from cgconfig.terminal import guarded_streams

    with guarded_streams():
        return _main(argv)


#: cgconfig uses no pydantic plugin; discovering them walks every distribution on
#: ``sys.path`` at the first model built, and a ``*.dist-info`` symlink loop there (ELOOP)
#: would fail every command. A value the user set is kept.
PYDANTIC_PLUGINS = ("PYDANTIC_DISABLE_PLUGINS", "__all__")


def _main(argv: list[str] | None) -> int:
    os.environ.setdefault(*PYDANTIC_PLUGINS)
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "__complete":
        from cgconfig.cli.complete import run_complete

        return run_complete(args[1:])
    failed = _argv_error(args)
    if failed is not None:
        return failed
    if args and args[0] in FAST_COMMANDS and not _asks_help(args):
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


def _asks_help(args: list[str]) -> bool:
    """Whether a resolve/explain line asks for cgconfig's help: ``-h``/``--help`` before the
    launch line it may hold (after ``docker run`` or ``vllm serve``, ``-h`` is a container's
    hostname or the engine's own flag, not cgconfig's)."""
    from cgconfig.line.entry import CONTAINER_RUNNERS, might_have_entry_point

    for word in args[1:]:
        if word in ("--help", "-h"):
            return True
        if word == "--" or word.rsplit("/", 1)[-1] in CONTAINER_RUNNERS or (
                not word.startswith("-") and might_have_entry_point([word])):
            return False
    return False


def _prepare_streams() -> bool:
    """Make stdout/stderr writable objects that never raise on an unencodable character;
    returns whether stdout was closed at start."""
    closed = False
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:  # started with the descriptor closed (`>&-`)
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
            closed = closed or name == "stdout"
            continue
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding not in ("utf8", "utf8sig") and hasattr(stream, "reconfigure"):
            if _ascii_compatible(encoding):
                # ASCII or Latin-1 terminals: escape what they cannot show rather than crash.
                stream.reconfigure(errors="backslashreplace")
            else:
                # PYTHONIOENCODING=utf-16 (or an EBCDIC code page) would put NUL bytes or
                # unreadable bytes on a terminal: ASCII text stays ASCII, the rest UTF-8.
                stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    return closed


def _ascii_compatible(encoding: str) -> bool:
    """Whether ``encoding`` writes printable ASCII and newlines as the same bytes."""
    sample = "".join(map(chr, range(32, 127))) + "\t\n"
    try:
        return sample.encode(encoding) == sample.encode("ascii")
    except (LookupError, UnicodeError):
        return False


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _stderr_line(message: str) -> None:
    try:
        sys.stderr.write(f"cgconfig: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def console_main() -> None:
    """Console-script wrapper: exit with :func:`main`'s code. Ctrl-C at any point from here
    on is one "interrupted" line and exit 130."""
    try:
        code = _console_run()
    except KeyboardInterrupt:
        code = _interrupted()
    raise SystemExit(code)


def _interrupted() -> int:
    # A second Ctrl-C while the line is written, or during the exit, changes nothing.
    import signal  # here, not at the top: only an interrupted run needs it (start-up time)

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from cgconfig.errors import EXIT_INTERRUPTED

    _stderr_line("interrupted")
    return EXIT_INTERRUPTED


def _console_run() -> int:
    stdout_closed = _prepare_streams()
    try:
        code = main()
        sys.stdout.flush()
        if stdout_closed and code == 0:
            _stderr_line("error: cannot write output: standard output is closed")
            code = 2
    except BrokenPipeError:
        # `cgconfig explain --all | head`: the reader left; that is not an error of ours.
        _quiet_stdout()
        code = 0
    except OSError as exc:
        # stdout closed or full (`>/dev/full`): say so once, and exit like other bad setups.
        _quiet_stdout()
        _stderr_line(f"error: cannot write output: {exc.strerror or exc}")
        code = 2
    return code


if __name__ == "__main__":
    console_main()
