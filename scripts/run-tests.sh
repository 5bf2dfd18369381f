#!/usr/bin/env bash
# Runs every test of the package (already built) as two test processes side by side, each with its
# own broker (scripts/with-broker.sh; some tests stop and resume theirs):
#   fleet  the suites that run salvo workers as child processes (SalvoCLITests' Worker* suites, the
#          three-worker campaign control suite and the secured cluster suite), one at a time;
#   rest   everything else, one at a time.
# Most of both streams is waiting on processes, the broker and timers, so on 2 cores the two
# together take about as long as the longer one. Each test still runs alone within its stream, and
# the streams share nothing but the machine (every server picks a free port). Each line is
# prefixed with its stream; both summaries are printed again at the end.
#
#   TEST_STREAMS=1     one process, every test in turn (as `swift test --no-parallel`)
#   extra arguments    passed to both `swift test` runs (e.g. -c release)
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
fleet='^SalvoCLITests\.(Worker|CampaignControlAcceptanceTests|SecuredClusterTests)'

if [ "${TEST_STREAMS:-2}" = 1 ]; then
  exec scripts/with-broker.sh "$SWIFT" test --skip-build --no-parallel "$@"
fi
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# SwiftPM locks the build folder for a whole `swift test`; both runs only read it (--skip-build).
# Two runs opening the build database at the same moment can fail to attach it ("unable to attach
# DB") before any test starts: that run is started again (up to 3 tries).
run_stream() {
  local name=$1
  shift
  local status
  for try in 1 2 3; do
    scripts/with-broker.sh "$SWIFT" test --skip-build --ignore-lock --no-parallel "$@" 2>&1 | tee "$logs/$name.log" | sed -u "s/^/[$name] /"
    status=${PIPESTATUS[0]}
    [ "$status" -ne 0 ] && grep -q "unable to attach DB" "$logs/$name.log" || return "$status"
    echo "[$name] the build database could not be attached; starting the stream again (try $((try + 1)))"
    sleep $((try * 3))
  done
  return "$status"
}

started=$(date +%s)
run_stream fleet --filter "$fleet" "$@" &
fleet_pid=$!
run_stream rest --skip "$fleet" "$@" &
rest_pid=$!
wait "$fleet_pid"; fleet_status=$?
wait "$rest_pid"; rest_status=$?

echo
echo "run-tests: both streams ended after $(( $(date +%s) - started )) s"
for name in fleet rest; do
  grep -E "Test run with|Executed [0-9]+ tests?" "$logs/$name.log" | sed "s/^/[$name] /"
  grep -E "^✘ (Test|Suite) .* failed" "$logs/$name.log" | sed "s/^/[$name] /"
done
if [ "$fleet_status" -ne 0 ] || [ "$rest_status" -ne 0 ]; then
  echo "run-tests: FAILED (fleet exit $fleet_status, rest exit $rest_status)"
  exit 1
fi
echo "run-tests: every test passed"
