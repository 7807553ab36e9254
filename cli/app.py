"""The typer application: ``diff``, ``schema``, ``version``, ``rules ...``, and help for
everything.

``resolve`` and ``explain`` are registered here for ``cgconfig --help`` and completion, but
:mod:`cgconfig.cli.main` dispatches them before this module is imported. ``resolve``,
``explain`` and ``diff`` parse their own arguments (typer passes them through untouched).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cgconfig.errors import EXIT_INTERRUPTED
from cgconfig.version import __version__


class _Command(typer.core.TyperCommand):
    """A command whose one-line help is never cut to click's 45 characters."""

    def get_short_help_str(self, limit: int = 45) -> str:
        return super().get_short_help_str(limit=_NO_LIMIT)


class _Group(typer.core.TyperGroup):
    """A command group whose one-line help is never cut either."""

    def get_short_help_str(self, limit: int = 45) -> str:
        return super().get_short_help_str(limit=_NO_LIMIT)


_NO_LIMIT = 1_000
#: ``-h`` as well as ``--help``; no 80-column cap: :func:`run_app` passes the width
#: (:func:`cgconfig.cli.width.width`: valid ``COLUMNS``, the terminal's, or 80 piped).
_CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": _NO_LIMIT}

app = typer.Typer(
    name="cgconfig",
    help="Decide which CUDA graphs an LLM server captures, and say why.",
    add_completion=False,  # `cgconfig completion SHELL` covers resolve's own flags too
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    cls=_Group,
    context_settings=_CONTEXT,
)
rules_app = typer.Typer(help="List, show and validate rule packs.", no_args_is_help=True,
                        cls=_Group, context_settings=_CONTEXT)
app.add_typer(rules_app, name="rules")


def _print_version(value: bool) -> None:
    if value:
        sys.stdout.write(f"cgconfig {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", "-V", is_eager=True,
                                          callback=_print_version,
                                          help="Print cgconfig's version and exit.")] = False,
) -> None:
    """Decide which CUDA graphs an LLM server captures, and say why."""


_OUTPUT_HELP = "Output format: table, json or yaml."
_PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True,
                 "help_option_names": []}


@app.command(context_settings=_PASS_THROUGH, cls=_Command)
def resolve(ctx: typer.Context) -> None:
    """Resolve the plan (see `cgconfig resolve --help`)."""
    from cgconfig.cli.resolve_cmd import run_resolve

    raise typer.Exit(run_resolve(list(ctx.args)))


@app.command(context_settings=_PASS_THROUGH, cls=_Command)
def explain(ctx: typer.Context) -> None:
    """Explain each value's chain of inputs and rules (see `cgconfig explain --help`)."""
    from cgconfig.cli.explain_cmd import run_explain

    raise typer.Exit(run_explain(list(ctx.args)))


@app.command(context_settings=_PASS_THROUGH, cls=_Command)
def tune(ctx: typer.Context) -> None:
    """Choose decode capture sizes from a batch-size histogram (see `cgconfig tune --help`)."""
    from cgconfig.cli.tune_cmd import run_tune

    raise typer.Exit(run_tune(list(ctx.args)))


@app.command(context_settings=_PASS_THROUGH, cls=_Command)
def verify(ctx: typer.Context) -> None:
    """Check a server against its plan from the server's own log (see `cgconfig verify --help`)."""
    from cgconfig.cli.verify_cmd import run_verify

    raise typer.Exit(run_verify(list(ctx.args)))


@app.command(cls=_Command)
def histogram(
    sglang_log: Annotated[str | None, typer.Option(help="SGLang server log to convert.")] = None,
    vllm_log: Annotated[str | None, typer.Option(
        help="vLLM server log to convert (--cudagraph-metrics or VLLM_LOG_BATCHSIZE_INTERVAL).")]
    = None,
    decode_log_interval: Annotated[str, typer.Option(  # str: read by cgconfig's own parser
        help="The server's --decode-log-interval (one decode line per this many steps).")] = "40",
    output: Annotated[str | None, typer.Option("--output", "-o",
                                               help="Write here instead of stdout.")] = None,
) -> None:
    """Convert an SGLang or vLLM server log into a batch-size histogram file for `cgconfig tune`."""
    from cgconfig.cli.tune_cmd import run_histogram

    raise typer.Exit(run_histogram(sglang_log, decode_log_interval, output, vllm_log=vllm_log))


@app.command(cls=_Command)
def calibrate(
    report: Annotated[str, typer.Argument(help="JSON of cgconfig.runtime.capture_report().")],
    layers: Annotated[int | None, typer.Option(
        help="The model's layers (config.json num_hidden_layers), if the report lacks them.")]
    = None,
    hidden: Annotated[int | None, typer.Option(
        help="The model's hidden size (config.json hidden_size), if the report lacks it.")]
    = None,
    tp: Annotated[int | None, typer.Option(help="Tensor-parallel ranks the report ran on.")]
    = None,
    engine: Annotated[str | None, typer.Option(
        help="Whose captures these are: runtime (default), sglang, vllm or trtllm.")] = None,
) -> None:
    """Fold a measured capture report into the local cost coefficients that plans then use."""
    from cgconfig.cli.errors import report as report_error
    from cgconfig.errors import CgConfigError

    try:
        from cgconfig.cost.calibrate import calibrate as run

        path, classes = run(report, engine=engine, layers=layers, hidden=hidden, tp=tp)
    except CgConfigError as error:
        raise typer.Exit(report_error(error)) from None
    for name, entry in classes.items():
        mem = entry.get("memory_mib_per_graph")
        sec = entry.get("seconds_per_graph")
        sys.stdout.write(f"{name}: {len(entry['fitted_on'])} samples"
                         + (f", memory {mem:g} MiB per graph unit" if mem is not None else "")
                         + (f", {sec:g} s per graph-layer unit" if sec is not None else "")
                         + "\n")
    sys.stdout.write(f"wrote {path} (plans now use it; CGCONFIG_COST_FILE names another)\n")
    raise typer.Exit(0)


@app.command(context_settings=_PASS_THROUGH, cls=_Command)
def diff(ctx: typer.Context) -> None:
    """Compare two plans (launch lines, plan files or stdin); exit 0 equal, 1 different."""
    from cgconfig.cli.diff_cmd import run_diff

    raise typer.Exit(run_diff(list(ctx.args)))


@app.command(context_settings=_PASS_THROUGH, cls=_Command)
def migrate(ctx: typer.Context) -> None:
    """Rewrite a launch line for another engine release (see `cgconfig migrate --help`)."""
    from cgconfig.cli.migrate_cmd import run_migrate

    raise typer.Exit(run_migrate(list(ctx.args)))


@app.command(cls=_Command)
def check(
    paths: Annotated[list[str] | None, typer.Argument(
        help="Files, folders or globs to check ('-': standard input). Default: '.'.")] = None,
    output: Annotated[str, typer.Option(
        "--output", "-o", help="table, json, sarif, github or markdown.")] = "table",
    fail_on: Annotated[str | None, typer.Option(
        help="Exit 1 on a finding at or above: error (default), warning, note, never.")] = None,
    engine_version: Annotated[str | None, typer.Option(
        help="Check every launch of an engine at this release (ENGINE==VERSION), over the files' pins.")]
    = None,
    newest: Annotated[bool, typer.Option(
        "--newest", help="Also report launches the newest release would capture differently "
                         "(CG009).")] = False,
    select: Annotated[list[str] | None, typer.Option(
        help="Report only these findings (CG001,CG003 or names).")] = None,
    ignore: Annotated[list[str] | None, typer.Option(help="Never report these findings.")]
    = None,
    severity: Annotated[list[str] | None, typer.Option(
        help="ID=LEVEL: report a finding at another severity (CG001=error).")] = None,
    exclude: Annotated[list[str] | None, typer.Option(
        help="Skip paths matching this gitignore pattern.")] = None,
    no_gitignore: Annotated[bool, typer.Option(
        "--no-gitignore", help="Read files that .gitignore lists too.")] = False,
    baseline: Annotated[str | None, typer.Option(
        help="Accept the findings recorded in this file.")] = None,
    write_baseline: Annotated[bool, typer.Option(
        "--write-baseline", help="Record every finding in the --baseline file, exit 0.")]
    = False,
    config: Annotated[str | None, typer.Option(
        help=".cgconfig.toml or pyproject.toml to read (default: the nearest).")] = None,
    set_vars: Annotated[list[str] | None, typer.Option(
        "--set", help="VAR=VALUE for a variable the files leave unset.")] = None,
    gpu_memory_gib: Annotated[str | None, typer.Option(
        help="GPU memory for launches whose file does not say (SGLang's sizes depend on it).")]
    = None,
    stdin_filename: Annotated[str, typer.Option(
        help="The name standard input is checked as (its suffix picks the reader).")] = "-",
) -> None:
    """Check every engine launch in files and folders; exit 1 on findings (see docs/check.md)."""
    from cgconfig.cli.check_cmd import CheckArgs, run_check_command

    raise typer.Exit(run_check_command(CheckArgs(
        paths=paths or ["."], output=output, fail_on=fail_on, engine_version=engine_version,
        newest=newest, select=select or [], ignore=ignore or [], severity=severity or [],
        exclude=exclude or [], gitignore=not no_gitignore, baseline=baseline,
        write_baseline=write_baseline, config=config, set_vars=set_vars or [],
        gpu_memory_gib=gpu_memory_gib, stdin_filename=stdin_filename)))


@app.command(cls=_Command)
def version(
    output: Annotated[str, typer.Option("--output", "-o", help=_OUTPUT_HELP)] = "table",
) -> None:
    """Print cgconfig's version."""
    from cgconfig.cli.output import check_format, fail, write_data
    from cgconfig.errors import InputError

    try:
        check_format(output)
    except InputError as error:
        raise typer.Exit(fail(error, "table")) from None
    if output == "table":
        sys.stdout.write(f"cgconfig {__version__}\n")
    else:
        write_data({"version": __version__}, output)


@app.command(cls=_Command)
def schema(
    what: Annotated[str, typer.Argument(help="config, deployment, plan or rules")] = "config",
    output: Annotated[str, typer.Option("--output", "-o", help="Output format: json or yaml.")]
    = "json",
) -> None:
    """Print the JSON Schema of the config (or of deployment facts, the plan, a rule pack)."""
    from cgconfig.cli.output import check_format, fail, write_data
    from cgconfig.errors import InputError, did_you_mean

    choices = ("config", "deployment", "plan", "rules")
    try:
        check_format(output, ("json", "yaml"))
        if what not in choices:
            raise InputError(f"unknown schema {what!r}", where="schema", allowed=choices,
                             suggestion=did_you_mean(what, choices))
    except InputError as error:
        raise typer.Exit(fail(error, output)) from None
    if what == "config":
        from cgconfig.fields.config import CudaGraphConfig

        data = CudaGraphConfig.model_json_schema()
    elif what == "deployment":
        from cgconfig.fields.deployment import DeploymentFacts

        data = DeploymentFacts.model_json_schema()
    elif what == "plan":
        from cgconfig.plan_schema import PlanDocument

        data = PlanDocument.model_json_schema(by_alias=True)
    else:
        from cgconfig.rules.schema import RulePack

        data = RulePack.model_json_schema(by_alias=True)
    if output == "json":
        import json

        sys.stdout.write(json.dumps(data, indent=2) + "\n")  # byte-identical to docs/schema/
    else:
        write_data(data, output)


@app.command(cls=_Command)
def completion(
    shell: Annotated[str, typer.Argument(help="bash, zsh or fish")] = "bash",
) -> None:
    """Print a shell completion script: `eval "$(cgconfig completion bash)"`."""
    from cgconfig.cli.complete import SHELLS, script
    from cgconfig.cli.errors import report
    from cgconfig.errors import InputError, did_you_mean

    if shell not in SHELLS:
        raise typer.Exit(report(InputError(f"unknown shell {shell!r}", where="completion",
                                           allowed=SHELLS, suggestion=did_you_mean(shell, SHELLS))))
    sys.stdout.write(script(shell))


@rules_app.command("list", cls=_Command)
def rules_list(
    extra: Annotated[list[str] | None, typer.Option("--rules", help="Add a pack (YAML).")] = None,
    output: Annotated[str, typer.Option("--output", "-o", help=_OUTPUT_HELP)] = "table",
) -> None:
    """Table of every rule: id, kind, pack, one-line title."""
    from cgconfig.cli.rules_cmd import list_rules

    raise typer.Exit(list_rules(extra or [], output))


@rules_app.command("show", cls=_Command)
def rules_show(
    rule_id: Annotated[str, typer.Argument(help="Rule id.")],
    extra: Annotated[list[str] | None, typer.Option("--rules", help="Add a pack (YAML).")] = None,
    output: Annotated[str, typer.Option("--output", "-o", help=_OUTPUT_HELP)] = "table",
) -> None:
    """A rule's condition, actions, reason, examples and upstream source."""
    from cgconfig.cli.rules_cmd import show_rule

    raise typer.Exit(show_rule(rule_id, extra or [], output))


@rules_app.command("validate", cls=_Command)
def rules_validate(
    path: Annotated[str, typer.Argument(help="Rule pack file.")],
    output: Annotated[str, typer.Option("--output", "-o", help="Output format: table or json.")]
    = "table",
) -> None:
    """Validate a rule pack (schema, paths, literals) and run its examples (exit 2 on a failure)."""
    from cgconfig.cli.rules_cmd import validate_pack

    raise typer.Exit(validate_pack(path, output))


def run_app(argv: list[str]) -> int:
    """Run the typer app on ``argv``; returns the exit code. Usage errors (unknown command or
    option, missing argument) are one ``cgconfig: error:`` line and exit 2, like every other
    bad input; with no command, the help is printed and the exit code is 0."""
    from cgconfig.cli.help import PIPED_WIDTH
    from cgconfig.cli.output import usage_error
    from cgconfig.cli.width import width

    try:
        code = app(args=argv, prog_name="cgconfig", standalone_mode=False,
                   terminal_width=width(PIPED_WIDTH))
    except Exception as error:
        if "Abort" in {cls.__name__ for cls in type(error).__mro__}:
            raise KeyboardInterrupt from None  # click's Ctrl-C: console_main prints one line
        handled = usage_error(error, argv)
        if handled is None:
            raise
        return handled
    if code == EXIT_INTERRUPTED:
        # typer turns Ctrl-C inside a command into Exit(130) and, out of standalone mode,
        # returns the bare code: console_main says "interrupted" once, as for any Ctrl-C.
        raise KeyboardInterrupt
    return code if isinstance(code, int) else 0
