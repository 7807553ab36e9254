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
extra=(--dialect sglang)
# A flag SGLang 0.5.23 does not know stops the launch (a typo would stop the server anyway);
# CGCONFIG_IGNORE_UNKNOWN=1 lets a newer server's flags through.
[[ "${CGCONFIG_IGNORE_UNKNOWN:-0}" == "1" ]] && extra+=(--ignore-unknown-args)
[[ -n "${CGCONFIG_DEPLOYMENT:-}" ]] && extra+=(--deployment "$CGCONFIG_DEPLOYMENT")
case "${CGCONFIG_CHECK:-1}" in
  1) extra+=(--check) ;;          # stop when a constraint overrode a value you set
  any) extra+=(--check=any) ;;    # stop on any change from your inputs
  0) ;;
  *) echo "launch_sglang: CGCONFIG_CHECK=${CGCONFIG_CHECK}: allowed: 1, any, 0" >&2; exit 2 ;;
esac

# 1. Fail fast: bad input exits 2, --strict conflicts 3, --check 10 (a constraint overrode
#    a value you set; add --allow RULE_ID to accept one).
plan_env=$(cgconfig resolve --emit env "${extra[@]}" "$@") || {
  status=$?
  echo "launch_sglang: cgconfig refused the configuration (exit $status); see above" >&2
  exit "$status"
}

# 2. The lines are `export NAME='shell-quoted value'`: safe to eval (or to source from a file).
eval "$plan_env"
eval "server_args=( $CGCONFIG_SERVER_ARGS )"
eval "graph_args=( $CGCONFIG_SGLANG_ARGS )"

# 3. Hand over to the server: your flags, then the plan's graph flags.
# shellcheck disable=SC2086  # server_cmd is a command line, split on purpose
exec $server_cmd "${server_args[@]}" "${graph_args[@]}"
