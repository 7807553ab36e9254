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
extra=(--dialect vllm)
# A flag vLLM 0.33.0 does not know stops the launch (a typo would stop the server anyway);
# CGCONFIG_IGNORE_UNKNOWN=1 lets a newer server's flags through.
[[ "${CGCONFIG_IGNORE_UNKNOWN:-0}" == "1" ]] && extra+=(--ignore-unknown-args)
[[ -n "${CGCONFIG_DEPLOYMENT:-}" ]] && extra+=(--deployment "$CGCONFIG_DEPLOYMENT")
case "${CGCONFIG_CHECK:-1}" in
  1) extra+=(--check) ;;          # stop when a constraint overrode a value you set
  any) extra+=(--check=any) ;;    # stop on any change from your inputs
  0) ;;
  *) echo "launch_vllm: CGCONFIG_CHECK=${CGCONFIG_CHECK}: allowed: 1, any, 0" >&2; exit 2 ;;
esac

# 1. Fail fast: bad input exits 2, --strict conflicts 3, --check 10 (a constraint overrode
#    a value you set; add --allow RULE_ID to accept one).
plan_env=$(cgconfig resolve --emit env "${extra[@]}" "$@") || {
  status=$?
  echo "launch_vllm: cgconfig refused the configuration (exit $status); see above" >&2
  exit "$status"
}

# 2. The lines are `export NAME='shell-quoted value'`: safe to eval (or to source from a file).
eval "$plan_env"
eval "server_args=( $CGCONFIG_SERVER_ARGS )"
eval "graph_args=( $CGCONFIG_VLLM_ARGS )"

# 3. Hand over to the server: the model, your flags, then the plan's compilation config.
# shellcheck disable=SC2086  # server_cmd is a command line, split on purpose
exec $server_cmd "${model[@]}" "${server_args[@]}" "${graph_args[@]}"
