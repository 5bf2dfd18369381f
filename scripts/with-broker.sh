#!/usr/bin/env bash
# Runs a command with a fresh Tansu broker on 127.0.0.1 at a free port, and stops the broker when
# the command ends, whether it passed, failed or was interrupted.
#
# The command sees:
#   SALVO_TEST_BROKERS   host:port of the broker
#   SALVO_TEST_TANSU     path of the tansu binary (for `tansu topic create`)
#   LD_LIBRARY_PATH      .deps/librdkafka first, so librdkafka 2.16 is loaded (Tansu needs >= 2.3)
set -euo pipefail
cd "$(dirname "$0")/.."
deps="$PWD/.deps"
tansu="$deps/bin/tansu"
[ -x "$tansu" ] || { echo "with-broker: $tansu missing: run scripts/install-test-broker.sh" >&2; exit 2; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
log="${TMPDIR:-/tmp}/salvo-tansu-$port.log"
"$tansu" broker --listener-url "tcp://127.0.0.1:$port" --advertised-listener-url "tcp://127.0.0.1:$port" \
  --storage-engine memory://tansu/ >"$log" 2>&1 &
broker=$!
stop() { kill -CONT "$broker" 2>/dev/null || true; kill "$broker" 2>/dev/null || true; wait "$broker" 2>/dev/null || true; }
trap stop EXIT INT TERM

for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  kill -0 "$broker" 2>/dev/null || { echo "with-broker: tansu exited; log:" >&2; cat "$log" >&2; exit 2; }
  sleep 0.1
done
echo "with-broker: tansu $("$tansu" --version | awk '{print $2}') on 127.0.0.1:$port (pid $broker, log $log)"

export SALVO_TEST_BROKERS="127.0.0.1:$port"
export SALVO_TEST_TANSU="$tansu"
export SALVO_TEST_BROKER_PID="$broker"
export LD_LIBRARY_PATH="$deps/librdkafka${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
set +e
"$@"
rc=$?
set -e
exit $rc
