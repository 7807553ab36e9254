"""ToyLLM: a made-up engine whose server captures decode graphs of 1, 2, 4 ... up to
``--max-batch-size`` requests (the plug-in that ``tests/core/test_new_engine.py`` registers)."""
