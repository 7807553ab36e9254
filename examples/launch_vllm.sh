#!/usr/bin/env bash
# Resolve the CUDA-graph plan for vLLM, refuse silent downgrades, then start `vllm serve` with
# a --compilation-config that realises the plan.
#
#   examples/launch_vllm.sh meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 \
#       --gpu-memory-gib 80 --max-num-seqs 128 -cc.cudagraph_mode=FULL_AND_PIECEWISE
#
# A leading model name goes first to the server. The server gets your flags untouched, minus
# the ones cgconfig owns: its own (--gpu-memory-gib, --vllm-attention-backend,
# --cudagraph-support, --check, ...) and the graph flags the plan replaces
# (--compilation-config/-cc and -cc.KEY, --cudagraph-capture-sizes,
# --max-cudagraph-capture-size); your compilation-config keys without a graph effect are kept
# inside the plan's --compilation-config. VLLM_SERVER_CMD replaces `vllm serve` (tests use a
# stand-in); CGCONFIG_DEPLOYMENT names a deployment file; CGCONFIG_CHECK=0 lets
# overrides through, CGCONFIG_CHECK=any also stops on intended policies.
set -euo pipefail

server_cmd=${VLLM_SERVER_CMD:-"vllm serve"}
model=()
if [[ $# -gt 0 && "$1" != -* ]]; then model=("$1"); shift; fi
# shellcheck source=examples/cgconfig_plan.sh
source "$(dirname "${BASH_SOURCE[0]}")/cgconfig_plan.sh"
cgconfig_plan launch_vllm vllm CGCONFIG_VLLM_ARGS "$@"

# 3. (after cgconfig_plan.sh's steps 1 and 2) Hand over to the server: the model, your flags, then the plan's compilation config.
# shellcheck disable=SC2086  # server_cmd is a command line, split on purpose
exec $server_cmd "${model[@]}" "${server_args[@]}" "${graph_args[@]}"
