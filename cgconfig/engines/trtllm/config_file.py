"""trtllm-serve has no ``--config FILE`` merge into its command line (the plug-in part
``config_file``): its ``--config`` names the same options file as ``--extra_llm_api_options``
(``tensorrt_llm/commands/serve.py``), which the TensorRT-LLM source reads as a document, with
the file's keys winning over the flags."""

CONFIG_FILE = None
