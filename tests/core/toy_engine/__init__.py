"""A scratch engine that lives outside cgconfig's tree: the proof that an engine is one folder
plus one registry row (``tests/core/test_new_engine.py``)."""
