"""``cgconfig migrate``: a launch line rewritten into another release's spelling.

Each engine flag of the line is read as its source release's parser reads it (an exact option
string, or a unique prefix where the parser allows abbreviations: ``table.load_table``) and
written as the target release's parser has it:

* a spelling the target has is kept (an abbreviation written out in full, since a prefix
  unique in one release can be ambiguous in another);
* a spelling the target lacks is renamed when something declares its successor: cgconfig's
  flag table (``fields/flags.py``: a key's deprecated aliases, ``FlagSpelling(aliases=...)``,
  and old switches with their replacement words), or the engine's own tables (a flag of the
  same ``dest`` under another option string);
* anything else cannot be kept: it is dropped, with one line saying why (the release that
  removed it, cgconfig's note on removed flags, a value the target's choices lack).

Words that are no release's flag (cgconfig's own ``--gpu-memory-gib``, the model, a
``docker run`` wrapper) are kept as written; an image tag naming the source release, and the
line's own ``--engine-version``, are moved to the target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cgconfig.line.release_from_flags import accepts
from cgconfig.line.table import EngineFlag, EngineTable, load_table
from cgconfig.line.versions import SUPPORTED, EngineVersion, label


@dataclass
class Change:
    """One rewrite of the line: what was written, what the target gets, and why."""

    before: list[str]
    """The words as the line wrote them (the flag and its values)."""
    after: list[str]
    """The target's words; empty when the flag cannot be kept."""
    why: str

    def to_dict(self) -> dict[str, object]:
        """The ``-o json`` form."""
        return {"before": self.before, "after": self.after, "why": self.why}


@dataclass
class Migration:
    """A line migrated from one release to another."""

    source: EngineVersion
    target: EngineVersion
    argv: list[str]
    """The rewritten line's words."""
    changes: list[Change] = field(default_factory=list)
    """Renamed, expanded or moved words."""
    dropped: list[Change] = field(default_factory=list)
    """What cannot be kept, each with why."""


def _resolve(table: EngineTable, name: str) -> EngineFlag | None:
    """The flag ``name`` stands for in ``table``'s release (exact, or a unique prefix)."""
    found = table.lookup(name)
    if found is None and accepts(table, name):
        found = table.lookup(table.prefix_matches(name)[0])
    return found


def _arity(flag: EngineFlag, words: Sequence[str], at: int, table: EngineTable) -> int:
    """How many words after ``words[at]`` the flag takes, as argparse counts them."""
    nargs = flag.nargs
    if not flag.takes_value or nargs == 0:
        return 0
    if isinstance(nargs, int):
        return min(nargs, len(words) - at - 1)
    count = 0
    while at + 1 + count < len(words):
        word = words[at + 1 + count]
        if word.startswith("-") and len(word) > 1 and not _number(word):
            break
        count += 1
        if nargs in (None, "?"):
            break
    del table
    return count


def _number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def _history(engine: str, name: str, source: str, target: str) -> str:
    """``removed in SGLang 0.5.20`` / ``new in vLLM 0.31.0``: between ``source`` and
    ``target``, from the tables."""
    releases = SUPPORTED[engine]
    lo, hi = sorted((releases.index(source), releases.index(target)))
    span = releases[lo:hi + 1]
    having = [v for v in span if load_table(engine, v).lookup(name) is not None]
    if not having:
        return f"no release from {span[0]} to {span[-1]} has it"
    if releases.index(target) > releases.index(source):
        gone = span[span.index(having[-1]) + 1]
        return f"removed in {label(engine, gone)}"
    return f"new in {label(engine, having[0])}"


def _successor(engine: str, flag: EngineFlag, target: EngineTable) -> tuple[list[str], str] | None:
    """The target's spelling of ``flag`` (its words and where that is declared), or ``None``."""
    from cgconfig.fields.flags import flag_index

    if engine == "sglang":
        index = flag_index()
        declared = index.get(flag.name)
        if declared is not None and declared.replacement:
            words = declared.replacement.split()
            if target.lookup(words[0]) is not None:
                return words, "cgconfig's flag table: its replacement"
        for alias, other in index.items():  # the other way: an older release's alias
            if other.replacement == flag.name and target.lookup(alias) is not None:
                return [alias], f"cgconfig's flag table: {flag.name}'s older spelling"
    for same in target.flags:
        if same.dest == flag.dest and same.options and same.takes_value == flag.takes_value:
            return [same.options[0]], f"{target.label} has the same setting ({flag.dest})"
    return None


def spelled_for(engine: str, name: str, release: str | None) -> str:
    """``name`` as ``release``'s parser spells it, for a message that tells the user which flag
    to set: itself where the release has it, else its spelling there (what ``migrate``
    writes: ``--cuda-graph-max-bs-decode`` is ``--cuda-graph-max-bs`` in SGLang 0.5.8), else
    ``name`` (no supported spelling: the message keeps the newest release's)."""
    if not release or release not in SUPPORTED.get(engine, ()):
        return name
    target = load_table(engine, release)
    if target.lookup(name) is not None:
        return name
    newest_flag = load_table(engine).lookup(name)
    found = _successor(engine, newest_flag, target) if newest_flag is not None else None
    return found[0][0] if found else name


def _removed_note(name: str) -> str | None:
    from cgconfig.fields.flags import REMOVED_FLAGS

    return REMOVED_FLAGS.get(name)


def rewrite_words(words: Sequence[str], source: EngineVersion, target: EngineVersion,
                  *, dotted: bool) -> tuple[list[str], list[Change], list[Change]]:
    """The engine ``words`` in ``target``'s spelling, the changes and the dropped flags.
    ``dotted``: vLLM's parser (``--a_b`` is ``--a-b``; ``--x.y`` sets a key of ``--x``)."""
    engine = source.engine
    old, new = load_table(engine, source.version), load_table(engine, target.version)
    out: list[str] = []
    changes: list[Change] = []
    dropped: list[Change] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word == "--":
            out += words[at:]
            break
        name, eq, inline = word.partition("=")
        key = name
        if dotted and name.startswith("--"):
            key = "--" + name[2:].split(".", 1)[0].replace("_", "-")
        flag = _resolve(old, key) if name.startswith("--") and len(name) > 2 else None
        if flag is None:
            out.append(word)  # not the source release's flag: cgconfig's own, the model...
            at += 1
            continue
        if eq:
            count = 0
        elif dotted and "." in name:
            count = 1  # one key of a JSON flag: one value
        else:
            count = _arity(flag, words, at, old)
        values = list(words[at + 1:at + 1 + count])
        written = [word, *values]
        at += 1 + count
        given = [inline] if eq else values
        exact = key if old.lookup(key) is not None else flag.name  # an abbreviation: in full
        ours = next((o for o in (exact, *flag.options) if new.lookup(o) is not None), None)
        spelled = (ours or exact) + (name[len(key):] if dotted and "." in name else "")
        kept = new.lookup(ours) if ours is not None else None
        same = _resolve(new, key)
        if kept is not None and same is not None and same.dest == kept.dest and key != exact:
            ours, kept = key, same  # the target reads the abbreviation as the same flag
            spelled = name
        if kept is not None:
            bad = [v for v in given if kept.choices is not None and v not in kept.choices]
            if bad:
                dropped.append(Change(written, [], f"{target.label} does not accept "
                                      f"{bad[0]!r} for {flag.name} (choices: "
                                      f"{', '.join(kept.choices or ())})"))
                continue
            after = [f"{spelled}={inline}" if eq else spelled, *values]
            if after != written and key != exact:
                changes.append(Change(written, after, f"{name} is short for {exact} in "
                                      f"{source.label}, which {target.label} reads otherwise "
                                      f"(ambiguous, or another flag): written out"))
            out += after
            continue
        history = _history(engine, exact, source.version, target.version)
        successor = _successor(engine, flag, new)
        if successor is not None and (len(successor[0]) == 1 or not given):
            repl, where = successor
            after = [*repl, *given] if len(repl) == 1 else repl
            renamed = new.lookup(repl[0])
            choices = renamed.choices if renamed is not None else None
            # the values the new flag gets: the line's, or those the replacement spells out
            bad = [v for v in after[1:] if choices is not None and v not in choices]
            if bad:
                dropped.append(Change(written, [], f"{target.label} has no {exact} ({history}), "
                                      f"and its {repl[0]} does not accept {bad[0]!r} (choices: "
                                      f"{', '.join(choices or ())})"))
                continue
            changes.append(Change(written, after, f"{target.label} has no {exact} "
                                  f"({history}); {where}"))
            out += after
            continue
        why = f"{target.label} has no {exact} ({history})"
        note = _removed_note(exact)
        dropped.append(Change(written, [], f"{why}; {note}" if note else why))
    return out, changes, dropped


def retag(word: str, target: EngineVersion) -> str | None:
    """An image reference whose tag names a release, with that release replaced by
    ``target``'s (``lmsysorg/sglang:v0.5.19-cu129`` → ``…:v0.5.23-cu129``), or ``None``. A
    digest after the tag pins the old image, so it is left off."""
    from cgconfig.line.version_source import tag_version

    reference = word.split("@", 1)[0]
    repository, colon, tag = reference.rpartition(":")
    if not colon or "/" in tag:
        return None
    version = tag_version(tag)
    if version is None:
        return None
    wanted = ("v" if version.startswith("v") else "") + target.version
    return f"{repository}:{wanted}{tag[len(version):]}"


def target_version(spec: str, engine: str) -> EngineVersion:
    """The release ``--to`` names (``sglang==0.5.23``, or ``0.5.23`` for the line's engine):
    a supported release, or one :class:`InputError` line naming the range."""
    from cgconfig.errors import InputError
    from cgconfig.line.version_source import parse_spec
    from cgconfig.line.versions import NAMES, choose

    version = parse_spec(spec, engine, "--to")
    if version is None:
        raise InputError(f"{spec!r} names no {NAMES[engine]} release, and the line is "
                         f"{NAMES[engine]}'s", where="--to", hint=f"--to {engine}==VERSION")
    try:
        return choose(engine, version, "--to")
    except ValueError as error:
        raise InputError(str(error), where="--to") from None


def migrate(argv: Sequence[str], spec: str, *, environ: dict[str, str] | None = None,
            engine_version: EngineVersion | None = None) -> Migration:
    """``argv`` (a launch line, read as ``cgconfig resolve`` reads it: its release from
    ``version_source.PRECEDENCE``, or ``engine_version``, a file's pin) rewritten for the
    release ``spec`` names."""
    from cgconfig.errors import InputError
    from cgconfig.line.entry import find_entry_point
    from cgconfig.line.plugins import part
    from cgconfig.line.version_source import FLAG, image_version
    from cgconfig.sources.command_line import split_command_line

    words = list(argv)
    split = split_command_line(words, environ=environ, engine_version=engine_version)
    source = split.engine_version
    if source is None or source.engine not in SUPPORTED or source.engine == "trtllm":
        raise InputError("migrate rewrites SGLang and vLLM lines", where="migrate",
                         hint="python -m sglang.launch_server ... or vllm serve MODEL ...")
    target = target_version(spec, source.engine)
    entry = find_entry_point(words)
    start = entry.args_at if entry is not None else 0
    engine_words, changes, dropped = (_short_o(words[start:], source, target)
                                      if source.engine == "vllm" else (words[start:], [], []))
    head = list(words[:start])
    support = part(source.engine, "migrate_support")  # vLLM 0.10.2's own spellings
    if support is not None:
        rules = support()
        for step in (rules.compilation_keys, rules.capture_flags):
            engine_words, more, gone = step(engine_words, source.version, target.version)
            changes += [Change(*r) for r in more]
            dropped += [Change(*r) for r in gone]
        head, engine_words, more, gone = rules.environment(head, engine_words, source.version,
                                                           target.version)
        changes += [Change(*r) for r in more]
        dropped += [Change(*r) for r in gone]
    body, more, gone = rewrite_words(engine_words, source, target,
                                     dotted=source.engine == "vllm")
    changes, dropped = changes + more, dropped + gone
    image = image_version(head, source.engine)
    if image is not None and image[0] in head:
        moved = retag(image[0], target)
        if moved is not None and moved != image[0]:
            head[head.index(image[0])] = moved
            changes.append(Change([image[0]], [moved], f"the image tag names {source.label}"))
    out = _moved_engine_version([*head, *body], target, FLAG, changes)
    return Migration(source, target, out, changes, dropped)


def _moved_engine_version(words: list[str], target: EngineVersion, flag: str,
                          changes: list[Change]) -> list[str]:
    """The line's own ``--engine-version`` naming ``target`` instead."""
    spec = f"{target.engine}=={target.version}"
    out = list(words)
    for at, word in enumerate(out):
        if word == flag and at + 1 < len(out):
            changes.append(Change([word, out[at + 1]], [word, spec], "the release migrated to"))
            out[at + 1] = spec
        elif word.startswith(flag + "="):
            changes.append(Change([word], [f"{flag}={spec}"], "the release migrated to"))
            out[at] = f"{flag}={spec}"
    return out


_LEVELS = ("0", "1", "2", "3")


def _short_o(words: Sequence[str], source: EngineVersion,
             target: EngineVersion) -> tuple[list[str], list[Change], list[Change]]:
    """vLLM's ``-O`` between a release where it is ``--compilation-config``'s short spelling
    (0.11.2: ``-O3`` is ``-O.mode=3``) and one where it is the optimization level and the short
    spelling is ``-cc`` (each release's own table says which): ``-O<n>`` / ``-O.KEY`` / ``-O
    JSON`` become ``-cc.mode=<n>`` / ``-cc.KEY`` / ``-cc JSON``, and back ``-cc`` becomes
    ``-O``; a level has no spelling in 0.11.2 but ``-O0`` (compilation mode NONE, no graphs,
    as level 0): the others are dropped, saying what 0.11.2 does instead. From 0.12.0 (which
    reads ``-O.KEY`` as ``-cc.KEY``, plug-in part ``dotted_o_is_cc``) to a later release,
    ``-O.KEY`` becomes ``-cc.KEY``."""
    def short(release: str) -> str | None:
        flag = load_table("vllm", release).lookup("-O")
        return flag.dest if flag is not None else None

    from cgconfig.line.plugins import part

    reads_dotted = part(source.engine, "dotted_o_is_cc")  # vLLM 0.12.0: -O.KEY is -cc.KEY
    up = short(source.version) == "compilation_config" != short(target.version)
    down = short(target.version) == "compilation_config" != short(source.version)
    # 0.12.0 reads -O.KEY as -cc.KEY, 0.13.0 on as the optimization level '.KEY'
    dotted = bool(not (up or down) and reads_dotted and reads_dotted(source.version)
                  and not reads_dotted(target.version))
    out: list[str] = []
    changes: list[Change] = []
    dropped: list[Change] = []
    at = 0
    while (up or down or dotted) and at < len(words):
        word = words[at]
        spaced = word == "-O" and at + 1 < len(words) and words[at + 1] in _LEVELS
        level = words[at + 1] if spaced else word[3:] if word.startswith("-O=") else \
            word[2:] if word.startswith("-O") and word[2:3] not in (".", "") else None
        written = list(words[at:at + 2]) if spaced else [word]
        at += len(written)
        if up and level is not None:
            after = [f"-cc.mode={level}"]
        elif up and (word == "-O" or word.startswith("-O.")):
            after = ["-cc" + word[2:]]
        elif dotted and word.startswith("-O."):
            after = ["-cc" + word[2:]]
            out += after
            changes.append(Change(written, after, f"{source.label} reads -O.KEY as -cc.KEY "
                                  f"(FlexibleArgumentParser.parse_args), {target.label} as "
                                  "the optimization level '.KEY'"))
            continue
        elif down and (word == "-cc" or word.startswith("-cc.")):
            after = ["-O" + word[3:]]
        elif down and level is not None and level != "0":
            default = part(source.engine, "migrate_support")().default_mode_text(target.version)
            dropped.append(Change(written, [], f"{target.label} reads {' '.join(written)} as "
                                  f"compilation {default.split()[0]} {level}, not an "
                                  f"optimization level: dropped (its default is {default}; "
                                  "level 1's PIECEWISE is -O.cudagraph_mode=PIECEWISE there)"))
            continue
        else:
            out += written
            continue
        out += after
        changes.append(Change(written, after, f"-O is --compilation-config's short spelling in "
                              f"{(source if up else target).label}, -cc in "
                              f"{(target if up else source).label}"))
    return (out, changes, dropped) if up or down or dotted else (list(words), [], [])
