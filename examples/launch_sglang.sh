#!/usr/bin/env bash
# Resolve the CUDA-graph plan, refuse silent downgrades, then start SGLang with exactly the
# graph flags cgconfig decided on.
#
#   examples/launch_sglang.sh --model-path meta-llama/Llama-3.1-8B-Instruct --tp-size 8 \
#       --gpu-memory-gib 141 --cuda-graph-max-bs-decode 128
#
# The server gets your flags untouched, minus the ones cgconfig owns: its own (--gpu-memory-gib,
# --model-arch, --deployment, --check, ...) and the graph flags that the plan's
# --cuda-graph-config replaces; then the plan's flags. SGLANG_SERVER_CMD replaces the server
# command (tests use a stand-in); CGCONFIG_DEPLOYMENT names a deployment file;
# CGCONFIG_CHECK=0 lets overrides through,
# CGCONFIG_CHECK=any also stops on intended policies.
set -euo pipefail

server_cmd=${SGLANG_SERVER_CMD:-"python -m sglang.launch_server"}
# shellcheck source=examples/cgconfig_plan.sh
source "$(dirname "${BASH_SOURCE[0]}")/cgconfig_plan.sh"
cgconfig_plan launch_sglang sglang CGCONFIG_SGLANG_ARGS "$@"

# 3. (after cgconfig_plan.sh's steps 1 and 2) Hand over to the server: your flags, then the plan's graph flags.
# shellcheck disable=SC2086  # server_cmd is a command line, split on purpose
exec $server_cmd "${server_args[@]}" "${graph_args[@]}"
