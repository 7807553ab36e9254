"""TensorRT-LLM as cgconfig reads it: trtllm-serve's flags (``tables/``), its options file and
flags (``source``, ``capture_options``), ``TorchLlmArgs``' batch-size resolution (``llm_args``,
``sizes``), its emitter (``emit``) and its log reader (``log_reader``).
"""
