"""Input sources: every input form is a source that returns a contribution.

A command line is split once (:mod:`.split`) into each source's tokens; the dialect found there
chooses the sources (:mod:`.gather`), and each source parses its own part once. Files, dicts,
config objects and argparse namespaces are sources too.
"""
