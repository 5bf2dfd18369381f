#!/usr/bin/env bash
# Installs the Debian packages Salvo needs. Safe to re-run: apt runs only when something is missing.
#   scripts/install-deps.sh build   C libraries to build and run salvo (make demo)
#   scripts/install-deps.sh test    the above plus the independent clients and tools the tests use
set -euo pipefail
build=(pkg-config librdkafka-dev libnghttp2-dev libssl-dev libjemalloc-dev)
# python3-venv: the test broker's Python packages go into a virtual environment under .deps/.
# valgrind, gcc and binutils: the instruction gate (callgrind, its preloaded shim, a stripped copy).
test=(kcat nghttp2-client nghttp2-server prometheus curl time unzip strace util-linux python3 python3-venv valgrind gcc binutils)
want=("${build[@]}")
[ "${1:-build}" = test ] && want+=("${test[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#want[@]} Debian packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
