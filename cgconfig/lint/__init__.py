"""``cgconfig check``: every engine launch in a repository's files, resolved at the release the
file pins, reported as findings with stable ids (docs/check.md lists them)."""
