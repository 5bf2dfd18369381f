#!/usr/bin/env bash
# The instruction gate: instructions per notification of the worker in campaign and
# per-user mode, and of h2load sending the same requests to the same mock, counted by valgrind's
# callgrind. Unlike CPU time, instruction counts do not move with this VM's speed (they repeat to
# about 0.2 %), so they gate builds on a shared machine.
#
# Each figure is the difference of two runs, (instructions at BIG − at SMALL) / (BIG − SMALL):
# start-up, group join, TLS set-up and shutdown cancel out. The worker runs as a child of
# `salvo bench worker` (backlog produced before it starts, a real broker, the mock APNs over TLS
# with JWT verification in the bench process, which is not under valgrind); h2load gets the same
# headers, the same body size and a distinct device path per request (`-i`), 2 connections like
# the worker's pool.
#
# valgrind 3.19 needs two workarounds for salvo: a copy stripped with `objcopy --strip-debug`
# (it cannot read DWARF 5) and scripts/valgrind/sigsuspend-shim.c preloaded (libdispatch passes
# sigsuspend a mask in read-only memory, which valgrind's wrapper writes into).
#
# Usage: scripts/bench-instructions.sh [SALVO_BINARY]      (default .build/release/salvo)
#   BENCH_REPORT_ONLY=1   print, but exit 0 when a target is missed
#   BENCH_CAMPAIGN="50000 150000" BENCH_PER_USER="20000 60000" BENCH_H2LOAD="50000 150000"
#   BENCH_KEEP=1          keep the scratch directory (callgrind outputs, for callgrind_annotate)
#   BENCH_QUICK=1         the sizes in scripts/bench-instructions.baseline; fail when a figure is
#                         more than 3 % above the baseline's (what `make test` runs)
#   BENCH_WRITE_BASELINE=1  write the figures measured (and the sizes) as the new baseline
# Needs a broker: runs itself under scripts/with-broker.sh when SALVO_TEST_BROKERS is unset.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SALVO_TEST_BROKERS:-}" ]; then exec scripts/with-broker.sh "$0" "$@"; fi
salvo="${1:-.build/release/salvo}"
# The quick form (`make test`): small sizes, named by the committed baseline, and a verdict
# against that baseline instead of the ratio targets.
baseline=scripts/bench-instructions.baseline
baseline_value() { awk -F= -v key="$1" '$1 == key {print $2}' "$baseline"; }
if [ -n "${BENCH_QUICK:-}" ]; then
  [ -f "$baseline" ] || { echo "bench-instructions: $baseline missing" >&2; exit 2; }
  BENCH_CAMPAIGN=$(baseline_value campaign_sizes)
  BENCH_PER_USER=$(baseline_value per_user_sizes)
  BENCH_H2LOAD=$(baseline_value h2load_sizes)
fi
read -r campaign_small campaign_big <<<"${BENCH_CAMPAIGN:-50000 150000}"
read -r per_user_small per_user_big <<<"${BENCH_PER_USER:-20000 60000}"
read -r h2load_small h2load_big <<<"${BENCH_H2LOAD:-50000 150000}"
campaign_target=1.30
baseline_tolerance=3
per_user_target=2.20
[ -x "$salvo" ] || { echo "bench-instructions: $salvo missing: make build-release (release flags: Makefile RELEASE_FLAGS)" >&2; exit 2; }
for tool in valgrind h2load cc objcopy python3; do
  command -v "$tool" >/dev/null || { echo "bench-instructions: $tool missing (apt-get install valgrind nghttp2-client gcc binutils)" >&2; exit 2; }
done

work=$(mktemp -d /tmp/salvo-bench-instructions.XXXXXX)
mock_pid=""
cleanup() {
  if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; fi
  if [ -z "${BENCH_KEEP:-}" ]; then rm -rf "$work"; else echo "bench-instructions: kept $work"; fi
}
trap cleanup EXIT INT TERM

cc -O2 -shared -fPIC -o "$work/sigsuspend-shim.so" scripts/valgrind/sigsuspend-shim.c
objcopy --strip-debug "$salvo" "$work/salvo"
callgrind() { echo "env LD_PRELOAD=$work/sigsuspend-shim.so valgrind --tool=callgrind --log-file=$work/$1.log --callgrind-out-file=$work/$1.out"; }
# Total instructions (Ir) of one callgrind output.
total() { awk '/^totals:/ {print $2; exit}' "$work/$1.out"; }

# worker MODE LABEL SIZE: one measurement of a callgrind'ed worker.
worker() {
  local mode=$1 label=$2 size=$3
  local sizes=(--campaign-notifications "$size" --per-user-notifications "$size")
  "$work/salvo" bench worker --brokers "$SALVO_TEST_BROKERS" --mode "$mode" "${sizes[@]}" \
    --worker-executable "$work/salvo" --worker-wrapper "$(callgrind "$label")" --timeout 15m | tee -a "$work/bench.txt"
  [ -s "$work/$label.out" ] || { echo "bench-instructions: no callgrind output for $label (see $work/$label.log)" >&2; exit 1; }
}

# The same requests for h2load: the worker's header fields and body, one device path each (both
# sizes read the same URI list, so reading it cancels out; each connection cycles through it). The
# worker's apns-id differs per request; h2load's is one value, the closest its -H allows.
"$work/salvo" mock-apns --generate-tls "$work/tls" >/dev/null
key_file=$(ls "$work"/tls/AuthKey_*.p8)
key_id=$(basename "$key_file" .p8); key_id=${key_id#AuthKey_}
jwt=$(cat "$work/tls/provider-token.jwt")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
"$work/salvo" mock-apns --listen "127.0.0.1:$port" --admin off --log-level warning --threads 1 \
  --tls-cert "$work/tls/server.pem" --tls-key "$work/tls/server-key.pem" \
  --token-key "$key_id:MOCKTEAM01:$key_file" >"$work/mock.log" 2>&1 &
mock_pid=$!
# BenchJob's payload, as the worker sends it.
printf '%s' '{"aps":{"alert":{"title":"Benchmark","body":"A notification of a typical size for a campaign"},"sound":"default"}}' >"$work/body.json"
python3 -c "
import sys
for i in range(1, $h2load_big + 1): print('https://127.0.0.1:$port/3/device/%064x' % i)" >"$work/uris.txt"
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
h2load_run() {
  local label=$1 size=$2
  # shellcheck disable=SC2046
  $(callgrind "$label") h2load -n "$size" -c 2 -m 1000 -d "$work/body.json" \
    -H "apns-topic: com.example.salvo" -H "apns-push-type: alert" -H "apns-priority: 10" \
    -H "authorization: bearer $jwt" -H "apns-id: 00000000-0000-0000-0000-000000000000" \
    -i "$work/uris.txt" >"$work/$label.h2load.txt" 2>&1
  grep -q "succeeded, 0 errored\|$size succeeded" "$work/$label.h2load.txt" || grep "requests:" "$work/$label.h2load.txt" >&2
}

started=$(date +%s)
h2load_run h2load-small "$h2load_small"
h2load_run h2load-big "$h2load_big"
kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; mock_pid=""
worker campaign campaign-small "$campaign_small"
worker campaign campaign-big "$campaign_big"
worker per-user per-user-small "$per_user_small"
worker per-user per-user-big "$per_user_big"

per_unit() { python3 -c "print(round(($(total "$1-big") - $(total "$1-small")) / ($3 - $2)))"; }
h2load_each=$(per_unit h2load "$h2load_small" "$h2load_big")
campaign_each=$(per_unit campaign "$campaign_small" "$campaign_big")
per_user_each=$(per_unit per-user "$per_user_small" "$per_user_big")
python3 - "$h2load_each" "$campaign_each" "$per_user_each" "$campaign_target" "$per_user_target" "$(( $(date +%s) - started ))" <<'EOF' | tee "$work/verdict.txt"
import sys
h2, campaign, per_user, campaign_target, per_user_target, seconds = sys.argv[1:]
h2, campaign, per_user = int(h2), int(campaign), int(per_user)
print(f"| h2load (same requests, same mock) | {h2:,} | 1.00 | — |")
for name, value, target in (("worker, campaign", campaign, campaign_target), ("worker, per-user", per_user, per_user_target)):
    ratio = value / h2
    verdict = "met" if ratio <= float(target) else "MISSED"
    print(f"| {name} | {value:,} | {ratio:.2f} | ≤ {target}: {verdict} |")
print(f"bench-instructions: campaign {campaign / h2:.2f}× h2load (target {campaign_target}), "
      f"per-user {per_user / h2:.2f}× (target {per_user_target}); {seconds} s")
EOF
if [ -n "${BENCH_WRITE_BASELINE:-}" ]; then
  {
    echo "# The quick instruction gate's baseline: the sizes measured and the figures they gave"
    echo "# (instructions per notification or request); written by BENCH_QUICK=1 BENCH_WRITE_BASELINE=1."
    echo "campaign_sizes=$campaign_small $campaign_big"
    echo "per_user_sizes=$per_user_small $per_user_big"
    echo "h2load_sizes=$h2load_small $h2load_big"
    echo "campaign=$campaign_each"
    echo "per_user=$per_user_each"
    echo "h2load=$h2load_each"
  } >"$baseline"
  echo "bench-instructions: wrote $baseline"
  exit 0
fi
if [ -n "${BENCH_QUICK:-}" ]; then
  python3 - "$baseline_tolerance" campaign "$campaign_each" "$(baseline_value campaign)" \
    per-user "$per_user_each" "$(baseline_value per_user)" h2load "$h2load_each" "$(baseline_value h2load)" \
    <<'EOF' | tee "$work/quick-verdict.txt"
import sys
tolerance = float(sys.argv[1])
rows = sys.argv[2:]
for name, value, base in zip(rows[0::3], rows[1::3], rows[2::3]):
    value, base = int(value), int(base)
    change = (value - base) / base * 100
    verdict = "ok" if change <= tolerance else "ROSE"
    print(f"bench-instructions (quick): {name} {value:,} against the baseline's {base:,} "
          f"({change:+.1f} %, at most +{tolerance:g} %): {verdict}")
EOF
  if grep -q ROSE "$work/quick-verdict.txt" && [ -z "${BENCH_REPORT_ONLY:-}" ]; then exit 1; fi
  exit 0
fi
if grep -q MISSED "$work/verdict.txt" && [ -z "${BENCH_REPORT_ONLY:-}" ]; then exit 1; fi
