#!/usr/bin/env bash
# Server CPU per 100k requests: the mock APNs (release build, validation and token auth on)
# against nghttpd (the C reference POST sink), same machine, same TLS certificate, same h2load
# load: APNs-shaped requests (POST /3/device/<64 hex>, apns-topic, apns-push-type,
# apns-priority, a JWT, a 200-byte JSON body) at -c1/-c4 × -m100/-m1000.
#
# CPU is user+sys from /proc/PID/stat over h2load's measurement window (after its warm-up);
# requests are h2load's "succeeded" count in that window. Both servers are single-threaded
# (the mock with --threads 1; nghttpd has one worker) and pinned to CPU 1, h2load to CPU 0, so
# the two compete for the same core under the same conditions. Each cell runs BENCH_ROUNDS
# rounds alternating the servers (and the mock's no-validation fast path, for reference) and
# reports medians: this machine is shared, single runs vary by ±30 %. Prints a Markdown table
# and a summary line. Writes only under a fresh /tmp directory, removed on exit.
#
# Usage: scripts/bench-mock.sh [SALVO_BINARY]   (default .build/release/salvo)
#   BENCH_DURATION=8 BENCH_WARMUP=2 BENCH_ROUNDS=3 BENCH_MATRIX="1x100 1x1000 4x100 4x1000"
set -euo pipefail
cd "$(dirname "$0")/.."
salvo="${1:-.build/release/salvo}"
duration="${BENCH_DURATION:-8}"
warmup="${BENCH_WARMUP:-2}"
matrix="${BENCH_MATRIX:-1x100 1x1000 4x100 4x1000}"
rounds="${BENCH_ROUNDS:-3}"
[ -x "$salvo" ] || { echo "bench-mock: $salvo missing: make build-release (release flags: Makefile RELEASE_FLAGS)" >&2; exit 2; }
for tool in h2load nghttpd python3 taskset; do
  command -v "$tool" >/dev/null || { echo "bench-mock: $tool missing (apt-get install nghttp2-client nghttp2-server)" >&2; exit 2; }
done

work=$(mktemp -d /tmp/salvo-bench-mock.XXXXXX)
mock_pid=""
fast_pid=""
nghttpd_pid=""
cleanup() {
  for pid in $mock_pid $fast_pid $nghttpd_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
wait_port() {
  for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "bench-mock: nothing listens on port $1" >&2; exit 2
}

token=$(printf 'ab%.0s' $(seq 1 32))
"$salvo" mock-apns --generate-tls "$work/tls" >/dev/null
key_file=$(ls "$work"/tls/AuthKey_*.p8)
key_id=$(basename "$key_file" .p8); key_id=${key_id#AuthKey_}
jwt=$(cat "$work/tls/provider-token.jwt")
python3 -c 'import sys; body = "{\"aps\":{\"alert\":{\"title\":\"Salvo\",\"body\":\"bench\"}},\"d\":\""; body += "x" * (200 - len(body) - 2) + "\"}"; sys.stdout.write(body)' >"$work/body.json"
mkdir -p "$work/www/3/device" && : >"$work/www/3/device/$token"

mock_port=$(free_port)
taskset -c 1 "$salvo" mock-apns --listen "127.0.0.1:$mock_port" --admin off --log-level warning --threads 1 \
  --tls-cert "$work/tls/server.pem" --tls-key "$work/tls/server-key.pem" \
  --token-key "$key_id:MOCKTEAM01:$key_file" >"$work/mock.log" 2>&1 &
mock_pid=$!
fast_port=$(free_port)
taskset -c 1 "$salvo" mock-apns --listen "127.0.0.1:$fast_port" --admin off --log-level warning --threads 1 \
  --tls-cert "$work/tls/server.pem" --tls-key "$work/tls/server-key.pem" --no-validation >"$work/fast.log" 2>&1 &
fast_pid=$!
nghttpd_port=$(free_port)
taskset -c 1 nghttpd -a 127.0.0.1 -m 1000 -d "$work/www" "$nghttpd_port" "$work/tls/server-key.pem" "$work/tls/server.pem" \
  >"$work/nghttpd.log" 2>&1 &
nghttpd_pid=$!
wait_port "$mock_port"
wait_port "$fast_port"
wait_port "$nghttpd_port"

ticks=$(getconf CLK_TCK)
# run SERVER_PID PORT CONNECTIONS STREAMS -> "req/s cpu_s_per_100k succeeded"
run() {
  local pid=$1 port=$2 c=$3 m=$4
  taskset -c 0 h2load -D "$duration" --warm-up-time "$warmup" -c "$c" -m "$m" -d "$work/body.json" \
    -H "apns-topic: com.example.salvo" -H "apns-push-type: alert" -H "apns-priority: 10" \
    -H "authorization: bearer $jwt" "https://127.0.0.1:$port/3/device/$token" >"$work/h2load.out" 2>&1 &
  local load=$!
  sleep "$warmup"
  local before; before=$(cpu_ticks "$pid")
  wait "$load"
  local after; after=$(cpu_ticks "$pid")
  local succeeded rps
  succeeded=$(awk '/^requests:/ {print $8}' "$work/h2load.out")
  rps=$(awk '/^finished in/ {print $4}' "$work/h2load.out")
  grep -q "status codes: $succeeded 2xx" "$work/h2load.out" || { echo "bench-mock: non-2xx answers:" >&2; cat "$work/h2load.out" >&2; exit 1; }
  python3 -c "import sys; t=($after-$before)/$ticks; n=$succeeded; print(f'{float(\"$rps\"):.0f} {t/n*100000:.3f}')"
}
# median DIGITS VALUES...
median() {
  local digits=$1; shift
  python3 -c "import statistics, sys; print(f'{statistics.median(float(x) for x in sys.argv[1:]):.${digits}f}')" "$@"
}

echo "# mock APNs vs nghttpd: server CPU-s per 100k requests (TLS, token auth, validation on), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# h2load -D $duration --warm-up-time $warmup, 200-byte body, medians of $rounds interleaved rounds, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| connections × streams | mock req/s | mock CPU-s/100k | nghttpd req/s | nghttpd CPU-s/100k | ratio | mock, no validation, CPU-s/100k |"
echo "|---|---:|---:|---:|---:|---:|---:|"
worst=0
for cell in $matrix; do
  c=${cell%x*}; m=${cell#*x}
  mock_rps=(); mock_cpu=(); ref_rps=(); ref_cpu=(); fast_cpu=()
  for _ in $(seq 1 "$rounds"); do
    read -r r t < <(run "$mock_pid" "$mock_port" "$c" "$m"); mock_rps+=("$r"); mock_cpu+=("$t")
    read -r r t < <(run "$nghttpd_pid" "$nghttpd_port" "$c" "$m"); ref_rps+=("$r"); ref_cpu+=("$t")
    read -r r t < <(run "$fast_pid" "$fast_port" "$c" "$m"); fast_cpu+=("$t")
  done
  mock=$(median 3 "${mock_cpu[@]}"); ref=$(median 3 "${ref_cpu[@]}")
  ratio=$(python3 -c "print(f'{$mock/$ref:.2f}')")
  worst=$(python3 -c "print(max($worst, $ratio))")
  echo "| $c × $m | $(median 0 "${mock_rps[@]}") | $mock | $(median 0 "${ref_rps[@]}") | $ref | $ratio | $(median 3 "${fast_cpu[@]}") |"
done
echo "bench-mock: worst mock/nghttpd CPU ratio $worst (target ≤ 1.5)"
