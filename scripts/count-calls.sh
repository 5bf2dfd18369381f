#!/usr/bin/env bash
# Counts calls the worker makes per delivered notification, by thread: swift_retain,
# swift_release and malloc (uprobes), divided by calls of WorkerCore.delivered.
#
# Unlike CPU time, these counts do not move with the host's speed, so they compare two builds on a
# shared machine where CPU-seconds cannot (docs/benchmarks.md, "Worker"). Needs root
# and perf (Debian: linux-perf); run it under the broker:
#
#   scripts/with-broker.sh scripts/count-calls.sh per-user [path/to/salvo]
#   scripts/with-broker.sh scripts/count-calls.sh campaign [path/to/salvo]
#
# The probes are attached to a running worker for 3 s in the middle of the bench's backlog, and
# removed again at the end.
set -euo pipefail
mode=${1:-per-user}
bin=$(realpath "${2:-.build/release/salvo}")
: "${SALVO_TEST_BROKERS:?run me under scripts/with-broker.sh}"
command -v perf >/dev/null || { echo "count-calls: perf missing (apt-get install linux-perf)" >&2; exit 2; }

swift_core=$(ldd "$bin" | awk '/libswiftCore.so/ {print $3}')
libc=$(ldd "$bin" | awk '/libc.so.6/ {print $3}')
delivered=$(nm "$bin" | grep -o '\$s11SalvoWorker0B4CoreC9delivered.*DispatchItemVF$' | head -1)
[ -n "$swift_core" ] && [ -n "$libc" ] && [ -n "$delivered" ] || { echo "count-calls: cannot find the probe points" >&2; exit 2; }

cleanup() { perf probe -q -d 'probe_salvo_count:*' 2>/dev/null || true; }
trap cleanup EXIT
cleanup
# Event names of their own (-f: another group may already probe the same functions).
perf probe -q -f -x "$swift_core" -a 'probe_salvo_count:retain_calls=swift_retain'
perf probe -q -f -x "$swift_core" -a 'probe_salvo_count:release_calls=swift_release'
perf probe -q -f -x "$libc" -a 'probe_salvo_count:malloc_calls=malloc'
perf probe -q -f -x "$bin" -a "probe_salvo_count:delivered_calls=$delivered"

out=$(mktemp)
case "$mode" in
  campaign) sizes=(--campaign-notifications 300000) ;;
  per-user) sizes=(--per-user-notifications 200000) ;;
  *) echo "count-calls: mode is campaign or per-user" >&2; exit 2 ;;
esac
(
  for _ in $(seq 1 600); do
    pid=$(pgrep -f "$bin worker --config" | head -1 || true)
    [ -n "$pid" ] && break
    sleep 0.1
  done
  # Past the group join and the TLS set-up, inside the backlog.
  sleep 4
  perf stat --per-thread -e 'probe_salvo_count:*' -p "$pid" -o "$out" -- sleep 3 >/dev/null 2>&1
) &
"$bin" bench worker --brokers "$SALVO_TEST_BROKERS" --mode "$mode" "${sizes[@]}" >/dev/null
wait

python3 - "$out" <<'PY'
import collections, re, sys
counts = collections.Counter()
delivered = 0
for line in open(sys.argv[1]):
    match = re.match(r'\s*(\S+)-\d+\s+([\d,]+)\s+probe_salvo_count:(\w+)', line)
    if not match:
        continue
    thread, count = match.group(1), int(match.group(2).replace(',', ''))
    event = match.group(3).removesuffix('_calls')
    if event == 'delivered':
        delivered += count
    else:
        counts[(thread, event)] += count
if delivered == 0:
    sys.exit("count-calls: no notification was delivered while counting")
print(f"{delivered} notifications delivered while counting; calls per notification:")
for (thread, event), count in sorted(counts.items()):
    if count / delivered >= 0.1:
        print(f"  {thread:<20} {event:<8} {count / delivered:8.1f}")
total = sum(count for (_, event), count in counts.items() if event != 'malloc')
print(f"  {'all threads':<20} {'retain+release':<8} {total / delivered:8.1f}")
PY
rm -f "$out"
