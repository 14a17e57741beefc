#!/usr/bin/env bash
# Run one command beside another: BACKGROUND in the background (its output to LOG), COMMAND
# in the foreground; wait for both; print BACKGROUND's wall time (and its log, if it failed);
# fail if either failed.  CI builds the docs site beside the test suite this way: the suite
# keeps both cores busy only ~80% of the time (its cluster and process tests wait), and the
# docs build's notebooks mostly wait on their own local clusters, so the two together take
# little longer than the suite alone.
# Usage: bash .ci/beside.sh LOG 'BACKGROUND COMMAND' COMMAND [ARGS...]
set -uo pipefail
log=$1 background=$2
shift 2
start=$SECONDS
bash -euo pipefail -c "$background" >"$log" 2>&1 </dev/null &
pid=$!
"$@"
status=$?
wait "$pid"
background_status=$?
echo "[beside: '$background' took $((SECONDS - start)) s, exit status $background_status; its output: $log]"
if [ "$background_status" -ne 0 ]; then
    tail -n 60 "$log" >&2
    [ "$status" -ne 0 ] || status=$background_status
fi
exit "$status"
