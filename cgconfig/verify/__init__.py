"""``cgconfig verify``: check a running server against its plan from the server's own log.

:mod:`.text` reads lines safely; each engine's reader (``cgconfig/engines/<engine>/
log_reader.py``, its plug-in part ``log_reader``) reads its lines into a
:class:`.record.LogRecord`;
:mod:`.read` runs them in one pass; :mod:`.launch` turns printed arguments back into a launch
line; :mod:`.compare` and :mod:`.eager` set the record against the plan; :mod:`.check` ties them
together; :mod:`.report` prints the result. The readers feed ``cgconfig histogram`` too.
"""
