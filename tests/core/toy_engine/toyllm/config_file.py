"""ToyLLM merges no ``--config FILE`` into its command line (the plug-in part ``config_file``)."""

CONFIG_FILE = None
