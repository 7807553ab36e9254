#!/usr/bin/env bash
# Resolve the CUDA-graph plan, refuse silent downgrades, then start SGLang with exactly the
# graph flags cgconfig decided on.
#
#   examples/launch_sglang.sh --model-path meta-llama/Llama-3.1-8B-Instruct --tp-size 8 ...
#
# Every argument is passed to both cgconfig (which ignores flags without a graph effect) and the
# server. SGLANG_SERVER_CMD replaces the server command (tests use a stand-in); CGCONFIG_CHECK=0
# lets downgrades through.
set -euo pipefail

server_cmd=${SGLANG_SERVER_CMD:-"python -m sglang.launch_server"}
deployment=${CGCONFIG_DEPLOYMENT:-}
extra=()
[[ -n "$deployment" ]] && extra+=(--deployment "$deployment")
[[ "${CGCONFIG_CHECK:-1}" == "1" ]] && extra+=(--check)

# 1. Fail fast: bad input exits 2, --strict conflicts 3, --check downgrades 10.
graph_args=$(cgconfig resolve --emit sglang --ignore-unknown-args "${extra[@]}" "$@") || {
  status=$?
  echo "launch_sglang: cgconfig refused the configuration (exit $status); see above" >&2
  exit "$status"
}

# 2. Drop the graph flags cgconfig replaces, keep everything else for the server.
passthrough=()
skip_values=0
for arg in "$@"; do
  if (( skip_values )); then
    if [[ "$arg" == -* ]]; then skip_values=0; else continue; fi
  fi
  case "$arg" in
    --cuda-graph-*|--disable-cuda-graph|--disable-*-cuda-graph|--enable-breakable-cuda-graph|\
    --disable-piecewise-cuda-graph|--piecewise-cuda-graph-*|--disable-cuda-graph-padding|\
    --enable-torch-compile|--enable-cudagraph-gc|--debug-cuda-graph|--torch-compile-max-bs)
      skip_values=1; continue ;;
  esac
  passthrough+=("$arg")
done

# 3. Hand over to the server with the resolved graph flags.
eval "graph=( $graph_args )"
# shellcheck disable=SC2086
exec $server_cmd "${passthrough[@]}" "${graph[@]}"
