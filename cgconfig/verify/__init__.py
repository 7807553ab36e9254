"""``cgconfig verify``: check a running server against its plan from the server's own log.

:mod:`.text` reads lines safely; :mod:`.sglang_reader`, :mod:`.vllm_reader` and
:mod:`.trtllm_reader` read one engine's lines each into a :class:`.record.LogRecord`;
:mod:`.read` runs them in one pass; :mod:`.launch` turns printed arguments back into a launch
line; :mod:`.compare` and :mod:`.eager` set the record against the plan; :mod:`.check` ties them
together; :mod:`.report` prints the result. The readers feed ``cgconfig histogram`` too.
"""
