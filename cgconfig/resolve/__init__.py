"""Resolution as named steps: a request becomes a plan (see :mod:`.pipeline` for the list)."""
