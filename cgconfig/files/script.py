"""Engine launches among a shell script's statements (a ``run.sh``, a ``sh -c`` string)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from cgconfig.files.context import Context
from cgconfig.files.record import Launch
from cgconfig.files.script_reader import assignment, read_script
from cgconfig.files.shell import Statement, Word
from cgconfig.line.entry import find_entry_point

#: Words before a program that run it in the same process or only time it.
_SAME_PROCESS = frozenset(("exec", "nohup", "time", "command", "then", "do", "else", "!",
                           "{"))


def launches_in_script(text: str, first_line: int, context: Context,
                       variables: Mapping[str, str]) -> list[Launch]:
    """Each statement of the script ``text`` that starts an engine, as a :class:`Launch`.

    ``variables`` (``--set``) fill what neither the context's env nor the script sets; the
    files the script writes with here-documents travel with the launch."""
    from cgconfig.files.pins import from_image, script_pins

    known = {**context.env, **variables}
    statements, _ = read_script(text, first_line=first_line, where=context.path,
                                variables=known, fixed=frozenset(variables))
    image = from_image(statements) if context.image is None else None
    if image is not None:  # a Dockerfile's FROM: the image its CMD runs in
        context = replace(context, image=image[0], image_line=image[1])
    pins = script_pins(statements, context.path)
    written: dict[str, str] = {}
    out: list[Launch] = []
    for statement in statements:
        written.update(statement.writes)
        found = launch_of_words(statement.words, context, written, pins)
        if found is not None:
            out.append(found)
    return out


def launch_of_words(words: list[Word], context: Context,
                    written: Mapping[str, str] | None = None,
                    pins: Mapping[str, tuple[str, str]] | None = None) -> Launch | None:
    """The launch ``words`` (one statement, or a container's ``command`` + ``args``) start,
    or ``None`` when they start no engine. ``pins`` (engine → (``engine==version``, origin),
    ``files.pins.script_pins``) are the releases the script's own words install: they come
    after the context's and before its image's tag (a ``pip install`` replaces the image's
    engine)."""
    from cgconfig.files.dynamo import map_entry_point

    texts = [w.text for w in words]
    # `exec`, `nohup`, `time` before the program start the same process (VAR=value kept)
    wrappers = [i for i, text in enumerate(texts) if text in _SAME_PROCESS and
                all(assignment(t) or t in _SAME_PROCESS for t in texts[:i])]
    if wrappers:
        words = [w for i, w in enumerate(words) if i not in wrappers]
        texts = [w.text for w in words]
    mapped = map_entry_point(texts)
    notes = list(context.notes)
    if mapped is not None:
        from cgconfig.files.dynamo import dynamo_role

        if context.role is None and dynamo_role(texts):
            context = replace(context, role=dynamo_role(texts))
        keep, texts, note = mapped
        words = [words[i] for i in keep]
        notes.append(note)
    entry = find_entry_point(texts)
    if entry is None:
        return None
    from cgconfig.files.expand import UNKNOWN
    from cgconfig.files.release import pinned_release
    from cgconfig.files.roles import role_of

    chosen = words[entry.program_at:]
    argv = tuple(texts[entry.program_at:])
    env = {k: v for k, v in {**context.env, **entry.env}.items() if v != UNKNOWN}
    unresolved = tuple(dict.fromkeys(n for w in chosen for n in w.unresolved))
    version, origin = context.engine_version, context.version_origin
    if version is None and pins and entry.dialect in pins:
        version, origin = pins[entry.dialect]
    if version is None:
        version, origin, pin_note = pinned_release(context, entry.dialect)
        if pin_note:
            notes.append(pin_note)
    return Launch(
        file=context.path, line=chosen[0].line, argv=argv,
        arg_lines=tuple(w.line for w in chosen), env=tuple(sorted(env.items())),
        kind=context.kind, container=context.container,
        role=context.role or role_of(entry.dialect, list(argv)),
        engine_version=version, version_origin=origin,
        gpu_count=context.gpu_count, gpu_kind=context.gpu_kind, unresolved=unresolved,
        notes=tuple(notes), unresolved_at=tuple(i for i, w in enumerate(chosen) if w.unresolved),
        files=tuple(sorted((written or {}).items())))


def statement_words(statement: Statement) -> list[str]:
    """The texts of a statement's words."""
    return [w.text for w in statement.words]
