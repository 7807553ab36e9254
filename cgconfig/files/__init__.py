"""Launch lines read from the files they live in: manifests, charts, compose files, task files,
recipes and shell scripts (``cgconfig resolve --from FILE``)."""
