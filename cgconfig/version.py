"""cgconfig's own version: one home, read by the package, the CLI and the rule-pack cache key
(a module of its own so that none of them imports the package's lazy public API)."""

__version__ = "0.1.0"
