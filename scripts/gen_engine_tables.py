#!/usr/bin/env python3
"""Regenerate cgconfig's engine flag tables (``cgconfig/engines/<engine>/tables/*.json``) from
the engines themselves.

Run by hand when an engine version changes, never in CI. Each table lists every flag the engine's
own command-line parser knows (all spellings, arity, value type, choices, default, deprecation,
hidden help) with a sample value the real parser accepted, plus the classification from the
hand-written overlay ``cgconfig/engines/<engine>/overlay.yaml`` (modelled / ignored / graph effect).

    # SGLang: ServerArgs.add_cli_args on the argparse parser that `sglang serve` builds
    python scripts/gen_engine_tables.py sglang [--sys-path DIR] [--stub-missing]
    # vLLM: the `vllm serve` parser (vllm.entrypoints.common.cli_args.make_arg_parser)
    python scripts/gen_engine_tables.py vllm [--sys-path DIR] [--stub-missing]
    # trtllm-serve: its click options, read from tensorrt_llm/commands/serve.py with `ast`
    python scripts/gen_engine_tables.py trtllm --source serve.py --version V --origin URL

``--sys-path DIR`` puts an unpacked wheel first on ``sys.path``; ``--stub-missing`` replaces
native packages that the parser modules import but never call (CUDA kernels, torchvision...)
with permissive fakes, which is how the checked-in tables were made on a CPU-only machine:

    PY=/path/to/venv-with-torch-transformers/bin/python
    $PY scripts/gen_engine_tables.py sglang --sys-path vendor/sglang-0.5.23 --stub-missing
    $PY scripts/gen_engine_tables.py vllm --sys-path vendor/vllm-0.33.0 --stub-missing
    # an older release beside the newest (its table is cgconfig/engines/sglang/tables/sglang-<version>.json;
    # the version is read from the wheel, the overlay's newer flags are listed, not refused)
    $PY scripts/gen_engine_tables.py sglang --sys-path vendor/sglang-0.5.20 --stub-missing --older-release

The trtllm-serve table is built from source because the ``tensorrt-llm`` PyPI package is not
installable without CUDA; its table records the source file and commit it was read from.
Needs PyYAML (for the overlay).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

from engine_imports import import_with_stubs, prepare_imports

ROOT = Path(__file__).resolve().parent.parent
ENGINES_DIR = ROOT / "cgconfig" / "engines"
GENERATOR = "scripts/gen_engine_tables.py"

#: Values tried, in order, as a sample argument for each flag that takes one.
SAMPLE_CANDIDATES = ("1", "0.5", "x", "{}", '{"a": 1}', "true", "a=/x")


# --------------------------------------------------------------------------- argparse → rows

def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if hasattr(value, "value") and isinstance(value.value, (str, int)):  # enum members
        return value.value
    return repr(value)


def _choices(choices: Any) -> list[Any] | None:
    if choices is None:
        return None
    values = [_jsonable(c) for c in choices]
    # A set's order changes from run to run; keep the engine's order only where it has one.
    return sorted(values, key=str) if isinstance(choices, (set, frozenset)) else values


def _type_name(action: argparse.Action) -> str | None:
    kind = action.type
    if kind is None:
        return None
    return getattr(kind, "__name__", None) or type(kind).__name__


def _accepts(parser: argparse.ArgumentParser, argv: list[str]) -> bool:
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            _, rest = parser.parse_known_args(argv)
        except (SystemExit, Exception):
            return False
    return not rest


def _value_type(parser: argparse.ArgumentParser, spelling: str, nargs: Any) -> tuple[str, str | None]:
    """(normalised value type, a sample the real parser accepted), probed with the real parser."""
    many = nargs in ("+", "*") or (isinstance(nargs, int) and nargs > 1)
    count = nargs if isinstance(nargs, int) and nargs > 1 else 1

    def ok(sample: str) -> bool:
        return _accepts(parser, [spelling, *([sample] * count)])

    accepted = [s for s in SAMPLE_CANDIDATES if ok(s)]
    if not accepted:
        return "other", None
    if "x" in accepted:
        kind = "str"
    elif "1" in accepted:
        kind = "float" if "0.5" in accepted else "int"
    elif "{}" in accepted or '{"a": 1}' in accepted:
        kind = "json"
    elif "true" in accepted:
        kind = "bool"
    else:
        kind = "str"
    return (kind + "_list" if many else kind), accepted[0]


def _rows_from_parser(parser: argparse.ArgumentParser, deprecated: set[str]) -> list[dict[str, Any]]:
    probe = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    rows: list[dict[str, Any]] = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        zero_arg = action.nargs == 0
        # Spellings registered with the parser but hidden from help (vLLM's --no-enable-x) count too.
        hidden = [o for o, a in parser._option_string_actions.items()
                  if a is action and o not in action.option_strings]
        row: dict[str, Any] = {
            "options": [*action.option_strings, *hidden],
            "dest": action.dest,
            "action": type(action).__name__,
            "nargs": action.nargs if action.option_strings or action.nargs else None,
            "takes_value": not zero_arg,
            "type": None,
            "type_name": _type_name(action),
            "choices": _choices(action.choices),
            "default": _jsonable(action.default),
            "required": bool(action.required),
            "deprecated": action.dest in deprecated or bool(getattr(action, "deprecated", False))
            or "Deprecated" in type(action).__name__,
            "help_suppressed": action.help == argparse.SUPPRESS,
            "help": (action.help or "").split("\n")[0][:240] if action.help != argparse.SUPPRESS else "",
            "sample": None,
        }
        if not action.option_strings:
            row["type"], row["sample"] = "str", "MODEL"
        elif zero_arg:
            row["type"] = "flag"
        else:
            # Probe on a parser that holds only this action, so required flags elsewhere do not fail.
            probe._actions = [action]
            probe._option_string_actions = {o: action for o in action.option_strings}
            if action.choices is not None:
                choice = str(row["choices"][0])  # sorted when the engine's choices are a set
                row["type"], row["sample"] = "choice", choice if _accepts(probe, [
                    action.option_strings[0], *([choice] * (action.nargs if isinstance(action.nargs, int)
                                                            else 1))]) else None
            else:
                row["type"], row["sample"] = _value_type(probe, action.option_strings[0], action.nargs)
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- engines

def _sglang(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    import sglang.srt.server_args as server_args
    from sglang.version import __version__

    # The parser exactly as sglang.srt.server_args.prepare_server_args builds it.
    parser = argparse.ArgumentParser(prog="sglang serve")
    server_args.ServerArgs.add_cli_args(parser)
    meta = {"engine": "sglang", "version": __version__,
            "source": f"sglang {__version__}: sglang/srt/server_args.py ServerArgs.add_cli_args "
                      "(parser built as in prepare_server_args)",
            "parser": {"kind": "argparse", "prog": parser.prog, "allow_abbrev": parser.allow_abbrev,
                       "underscore_dashes": False, "dotted_json": False, "short_O": False}}
    return meta, _rows_from_parser(parser, set())


def _vllm(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    import importlib.util

    import vllm.platforms as platforms
    from vllm import __version__
    from vllm.platforms.cuda import NonNvmlCudaPlatform

    # Where each release keeps make_arg_parser (0.10-0.28 openai/, 0.29-0.32 launchers/).
    origin = next(m for m in ("common", "launchers", "openai")
                  if importlib.util.find_spec(f"vllm.entrypoints.{m}")
                  and importlib.util.find_spec(f"vllm.entrypoints.{m}.cli_args"))
    make_arg_parser = importlib.import_module(f"vllm.entrypoints.{origin}.cli_args").make_arg_parser
    # vllm/utils/argparse_utils.py from 0.11.1; vllm/utils/__init__.py before.
    utils = ("vllm.utils.argparse_utils" if importlib.util.find_spec("vllm.utils.argparse_utils")
             else "vllm.utils")
    flexible_parser = importlib.import_module(utils).FlexibleArgumentParser

    # Defaults such as the device type come from the current platform: record a CUDA machine's,
    # also on a machine without one (platform detection would fail there).
    platforms._current_platform = NonNvmlCudaPlatform()

    # `vllm serve` builds its subparser with FlexibleArgumentParser and make_arg_parser.
    parser = make_arg_parser(flexible_parser(prog="vllm serve"))
    deprecated = {a.dest for a in getattr(parser, "_deprecated", set())}
    meta = {"engine": "vllm", "version": __version__,
            "source": f"vllm {__version__}: vllm/entrypoints/{origin}/cli_args.py make_arg_parser "
                      "(FrontendArgs + AsyncEngineArgs.add_cli_args) on FlexibleArgumentParser",
            "parser": {"kind": "argparse", "prog": "vllm serve", "allow_abbrev": parser.allow_abbrev,
                       "underscore_dashes": True, "dotted_json": True, "short_O": True}}
    return meta, _rows_from_parser(parser, deprecated)


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


_CLICK_TYPES = {"int": "int", "float": "float", "str": "str", "bool": "bool"}


def _trtllm(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``serve`` command's click parameters, read from its source without importing it."""
    if not args.source or not args.version:
        sys.exit("trtllm needs --source tensorrt_llm/commands/serve.py and --version")
    tree = ast.parse(Path(args.source).read_text())
    serve = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "serve")
    rows: list[dict[str, Any]] = []
    for deco in reversed(serve.decorator_list):
        if not isinstance(deco, ast.Call) or not isinstance(deco.func, ast.Attribute):
            continue
        what = deco.func.attr
        if what not in ("option", "argument"):
            continue
        names = [a.value for a in deco.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        kw = {k.arg: k.value for k in deco.keywords if k.arg}
        options = [n for n in names if n.startswith("-")]
        dest = next((n for n in names if not n.startswith("-")), None) or options[0].lstrip("-")
        is_flag = _is_true(kw.get("is_flag"))
        multiple = _is_true(kw.get("multiple"))
        kind, choices = "str", None
        type_node = kw.get("type")
        if isinstance(type_node, ast.Name):
            kind = _CLICK_TYPES.get(type_node.id, "str")
        elif isinstance(type_node, ast.Call):
            first = type_node.args[0] if type_node.args else None
            if isinstance(first, ast.List):  # click.Choice([...]) or ChoiceWithAlias([...], {alias: ...})
                choices = [e.value for e in first.elts if isinstance(e, ast.Constant)]
                kind = "choice"
                aliases = type_node.args[1] if len(type_node.args) > 1 else None
                if isinstance(aliases, ast.Dict):
                    choices += [k.value for k in aliases.keys if isinstance(k, ast.Constant)]
        default = kw.get("default")
        rows.append({
            "options": options, "dest": dest.replace("-", "_"),
            "action": "flag" if is_flag else ("multiple" if multiple else what),
            "nargs": None, "takes_value": not is_flag, "type": "flag" if is_flag else kind,
            "type_name": ast.unparse(type_node) if type_node is not None else None,
            "choices": choices, "required": what == "argument",
            "default": default.value if isinstance(default, ast.Constant) else
            (ast.unparse(default) if default is not None else None),
            "deprecated": False, "help_suppressed": False, "help": "",
            "sample": None if is_flag else (choices[0] if choices else
                                             {"int": "1", "float": "0.5"}.get(kind, "x")),
        })
        if what == "argument":
            rows[-1].update(type="str", sample="MODEL", nargs=None)
    meta = {"engine": "trtllm", "version": args.version,
            "source": f"trtllm-serve `serve` click options read with ast from {args.origin} "
                      "(tensorrt-llm is not installable without CUDA)",
            "parser": {"kind": "click", "prog": "trtllm-serve", "allow_abbrev": False,
                       "underscore_dashes": False, "dotted_json": False, "short_O": False}}
    return meta, rows


# --------------------------------------------------------------------------- overlay + output

def _release(text: str) -> tuple[int, ...]:
    """``0.12.0`` as (0, 12, 0); a local or post suffix does not move a release's order."""
    return tuple(int(part) for part in re.findall(r"\d+", text.split("+")[0])[:3])


def _apply_overlay(engine: str, rows: list[dict[str, Any]], version: str) -> list[str]:
    """Classify every row of release ``version`` from <engine>/overlay.yaml; returns overlay
    names matching no flag."""
    import yaml

    overlay = yaml.safe_load((ENGINES_DIR / engine / "overlay.yaml").read_text()) or {}
    # modelled_older: flags only older releases have (no newest table has to carry them)
    older_only: dict[str, dict[str, Any]] = overlay.get("modelled_older") or {}
    # modelled_before: {release: flags}: modelled in the releases before it only (later ones
    # read them where cgconfig does not model it, so their graph_effect_unmodelled entry holds)
    before: dict[str, dict[str, Any]] = {
        name: entry for bound, flags in (overlay.get("modelled_before") or {}).items()
        if _release(version) < _release(str(bound)) for name, entry in flags.items()}
    older_only = {**older_only, **before}
    modelled: dict[str, dict[str, Any]] = {**(overlay.get("modelled") or {}), **older_only}
    graph: dict[str, str] = overlay.get("graph_effect_unmodelled") or {}
    seen: set[str] = set()
    for row in rows:
        key = row["options"][0] if row["options"] else row["dest"]
        spellings = set(row["options"]) | {row["dest"]}
        hit = next((s for s in spellings if s in modelled), None)
        if hit:
            seen.add(hit)
            entry = modelled[hit]
            row["status"] = "modelled"
            row["cgconfig"] = entry["cgconfig"]
            row["graph_effect"] = bool(entry.get("graph_effect", True))
            if entry.get("note"):
                row["note"] = entry["note"]
            continue
        hit = next((s for s in spellings if s in graph), None)
        row["status"] = "ignored"
        row["graph_effect"] = bool(hit)
        if hit:
            seen.add(hit)
            row["note"] = graph[hit]
        row.setdefault("cgconfig", None)
        del key
    return sorted((set(modelled) | set(graph)) - seen - set(older_only))


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("engine", choices=("sglang", "vllm", "trtllm"))
    cli.add_argument("--sys-path", help="put this directory (an unpacked wheel) first on sys.path")
    cli.add_argument("--stub-missing", action="store_true",
                     help="fake native packages the parser modules import but never call")
    cli.add_argument("--stub", action="append", default=[], metavar="PACKAGE",
                     help="with --stub-missing: also fake this package (added automatically on a miss)")
    cli.add_argument("--source", help="trtllm: path to tensorrt_llm/commands/serve.py")
    cli.add_argument("--version", help="trtllm: the version or commit the source is from")
    cli.add_argument("--origin", default="tensorrt_llm/commands/serve.py",
                     help="trtllm: where the source came from (URL @ commit), recorded in the table")
    cli.add_argument("--out", default=None, help="folder (default: the engine's tables/)")
    cli.add_argument("--older-release", "--older", dest="older_release", action="store_true",
                     help="an older release than the newest supported: overlay entries for flags "
                          "it does not have yet are listed, not an error")
    cli.add_argument("--reclassify", metavar="TABLE", nargs="+",
                     help="re-apply the overlay to generated tables (no engine import)")
    args = cli.parse_args()
    if args.reclassify:
        for path in map(Path, args.reclassify):
            table = json.loads(path.read_text())
            order = [list(row) for row in table["flags"]]
            for row in table["flags"]:
                row.pop("note", None)
                row["cgconfig"] = None
            _apply_overlay(args.engine, table["flags"], table["version"])
            table["flags"] = [{k: row[k] for k in sorted(row, key=lambda k, o=keys: (
                o.index(k) if k in o else len(o)))} for row, keys in zip(table["flags"], order, strict=True)]
            path.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n")
        return
    finder = None
    if args.engine != "trtllm":
        finder = prepare_imports(args.sys_path, args.stub_missing, args.stub)
    build = {"sglang": _sglang, "vllm": _vllm, "trtllm": _trtllm}[args.engine]
    meta, rows = import_with_stubs(lambda: build(args), args.engine, finder)
    unmatched = _apply_overlay(args.engine, rows, meta["version"])
    if args.engine == "sglang":  # the keys' own flags: from their declarations, not the overlay
        sys.path.insert(0, str(ROOT))
        from cgconfig.fields.engine_flags import classify
        from cgconfig.fields.generate import build_specs

        classify(rows, build_specs())
    if unmatched and args.older_release:
        print(f"{args.engine}/overlay.yaml flags this release lacks: {', '.join(unmatched)}",
              file=sys.stderr)
    elif unmatched:
        sys.exit(f"{args.engine}/overlay.yaml names flags the engine does not have: {unmatched}")
    name = {"trtllm": "trtllm-serve"}.get(args.engine, args.engine)
    table = {**meta, "generated": datetime.date.today().isoformat(), "generator": GENERATOR,
             "stubbed_imports": sorted(finder.roots) if finder else [],
             "flags": rows}
    folder = Path(args.out) if args.out else ENGINES_DIR / args.engine / "tables"
    out = folder / f"{name}-{meta['version']}.json"
    out.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n")
    counts = {s: sum(r["status"] == s for r in rows) for s in ("modelled", "ignored")}
    graph = sum(r["graph_effect"] for r in rows)
    print(f"{out}: {len(rows)} flags, {counts['modelled']} modelled, {counts['ignored']} ignored, "
          f"{graph} with graph effect")


if __name__ == "__main__":
    main()
