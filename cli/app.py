"""The typer application: ``schema``, ``version``, ``rules ...``, and help for everything.

``resolve`` and ``explain`` are registered here for ``cgconfig --help`` and completion, but
:mod:`cgconfig.cli.main` dispatches them before this module is imported.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cgconfig import __version__

app = typer.Typer(
    name="cgconfig",
    help="Decide which CUDA graphs an LLM server captures, and say why.",
    add_completion=False,  # `cgconfig completion SHELL` covers resolve's own flags too
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    rich_markup_mode=None,
)
rules_app = typer.Typer(help="List, show and validate rule packs.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")

_PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True,
                 "help_option_names": []}


@app.command(context_settings=_PASS_THROUGH)
def resolve(ctx: typer.Context) -> None:
    """Resolve the plan (see `cgconfig resolve --help`)."""
    from cgconfig.cli.resolve_cmd import run_resolve

    raise typer.Exit(run_resolve(list(ctx.args)))


@app.command(context_settings=_PASS_THROUGH)
def explain(ctx: typer.Context) -> None:
    """Explain each value's chain of inputs and rules (see `cgconfig explain --help`)."""
    from cgconfig.cli.explain_cmd import run_explain

    raise typer.Exit(run_explain(list(ctx.args)))


@app.command()
def version() -> None:
    """Print cgconfig's version."""
    sys.stdout.write(f"cgconfig {__version__}\n")


@app.command()
def schema(
    what: Annotated[str, typer.Argument(help="config, deployment, plan or rules")] = "config",
) -> None:
    """Print the JSON Schema of the config (or of deployment facts, the plan, a rule pack)."""
    import json

    from cgconfig.cli.errors import report
    from cgconfig.errors import InputError, did_you_mean

    choices = ("config", "deployment", "plan", "rules")
    if what not in choices:
        raise typer.Exit(report(InputError(f"unknown schema {what!r}", where="schema",
                                           allowed=choices,
                                           suggestion=did_you_mean(what, choices))))
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
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


@app.command()
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


@rules_app.command("list")
def rules_list(
    extra: Annotated[list[str] | None, typer.Option("--rules", help="Add a pack (YAML).")] = None,
) -> None:
    """Table of every rule: id, kind, pack, one-line title."""
    from cgconfig.cli.rules_cmd import list_rules

    raise typer.Exit(list_rules(extra or []))


@rules_app.command("show")
def rules_show(
    rule_id: Annotated[str, typer.Argument(help="Rule id.")],
    extra: Annotated[list[str] | None, typer.Option("--rules", help="Add a pack (YAML).")] = None,
) -> None:
    """A rule's condition, actions, reason, examples and upstream source."""
    from cgconfig.cli.rules_cmd import show_rule

    raise typer.Exit(show_rule(rule_id, extra or []))


@rules_app.command("validate")
def rules_validate(path: Annotated[str, typer.Argument(help="Rule pack file.")]) -> None:
    """Validate a rule pack (schema, paths, literals) and run its examples."""
    from cgconfig.cli.rules_cmd import validate_pack

    raise typer.Exit(validate_pack(path))


def run_app(argv: list[str]) -> int:
    """Run the typer app on ``argv``; returns the exit code."""
    try:
        app(args=argv, prog_name="cgconfig", standalone_mode=True)
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
