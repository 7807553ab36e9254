# Sourced by launch_sglang.sh and launch_vllm.sh: resolve the plan for one dialect, refuse what
# CGCONFIG_CHECK says to refuse, and set server_args (your flags, minus the ones cgconfig owns)
# and graph_args (the plan's graph flags for that server).
#
#   cgconfig_plan SCRIPT_NAME DIALECT GRAPH_ARGS_VARIABLE [your flags...]
cgconfig_plan() {
  local name=$1 dialect=$2 graph_var=$3
  shift 3
  local extra=(--dialect "$dialect")
  # A flag the engine does not know stops the launch (a typo would stop the server anyway);
  # CGCONFIG_IGNORE_UNKNOWN=1 lets a newer server's flags through.
  [[ "${CGCONFIG_IGNORE_UNKNOWN:-0}" == "1" ]] && extra+=(--ignore-unknown-args)
  [[ -n "${CGCONFIG_DEPLOYMENT:-}" ]] && extra+=(--deployment "$CGCONFIG_DEPLOYMENT")
  case "${CGCONFIG_CHECK:-1}" in
    1) extra+=(--check) ;;          # stop when a constraint overrode a value you set
    any) extra+=(--check=any) ;;    # stop on any change from your inputs
    0) ;;
    *) echo "$name: CGCONFIG_CHECK=${CGCONFIG_CHECK}: allowed: 1, any, 0" >&2; exit 2 ;;
  esac

  # 1. Fail fast: bad input exits 2, --strict conflicts 3, --check 10 (a constraint overrode
  #    a value you set; add --allow RULE_ID to accept one).
  local plan_env
  plan_env=$(cgconfig resolve --emit env "${extra[@]}" "$@") || {
    local status=$?
    echo "$name: cgconfig refused the configuration (exit $status); see above" >&2
    exit "$status"
  }

  # 2. The lines are `export NAME='shell-quoted value'`: safe to eval.
  eval "$plan_env"
  eval "server_args=( $CGCONFIG_SERVER_ARGS )"
  eval "graph_args=( ${!graph_var} )"
}
