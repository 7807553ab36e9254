"""Core test suite: precedence, locking, sizes, bad inputs, properties, CLI and API."""
