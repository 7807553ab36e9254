"""What cgconfig knows of other engines: vLLM's CUDA-graph modes and size grid, TensorRT-LLM's
batch sizes. The sources in :mod:`cgconfig.sources` read each engine's flags with this."""
