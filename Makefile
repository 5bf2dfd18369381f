# Salvo: the two commands a newcomer runs are `make demo` and `make test` (see README.md).
# Every target installs what it needs and is safe to re-run.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
SWIFT ?= swift
SWIFT_JOBS ?=
RELEASE_BIN := .build/release/salvo
# The code generation the shipped binary is built with, given here rather than as unsafe flags in
# Package.swift (which would keep other packages from depending on Salvo's libraries by version):
# docs/performance-notes.md has what each flag measured. docker/Dockerfile passes the same.
RELEASE_FLAGS := -Xswiftc -enforce-exclusivity=unchecked -Xswiftc -Xfrontend -Xswiftc -disable-type-layout
RELEASE_BUILD = $(SWIFT) build -c release --product salvo $(RELEASE_FLAGS) $(SWIFT_JOBS)

.PHONY: demo test lint deps test-deps build build-release bench-kafka bench-mock bench-apns bench-worker bench-jobs bench-instructions fuzz clean

## demo: build a release salvo and run the whole pipeline in one process (embedded Kafka, mock APNs over TLS,
## worker, 200,000-token load); summary on stdout, report in ./salvo-demo-report/
demo: deps build-release
	$(RELEASE_BIN) demo

## lint: swift-format (from the toolchain) in strict lint mode over Sources, Tests and Package.swift,
## with the repository's .swift-format; `make test` runs it first. Fix with `swift format -i -r Sources Tests`.
lint:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests Package.swift

## test: install packages and the test broker, build (debug for the tests, release for the binary that ships), run
## every test against a real broker (the child-process tests run the release salvo) as two streams side by side
## (scripts/run-tests.sh: the worker-fleet suites and the rest, each one test at a time), then the quick instruction gate
## (the full one's measurement at small sizes against scripts/bench-instructions.baseline, at most 3 % above it)
test: test-deps lint
	$(SWIFT) build --build-tests $(SWIFT_JOBS)
	$(RELEASE_BUILD)
	SALVO_TEST_EXECUTABLE=$(CURDIR)/$(RELEASE_BIN) scripts/run-tests.sh
	BENCH_QUICK=1 scripts/with-broker.sh scripts/bench-instructions.sh $(RELEASE_BIN)

deps:
	env PATH=$(DEBIAN_PATH) scripts/install-deps.sh build

# The install scripts run with a PATH that holds only Debian's programs (and so Debian's Python),
# as on a stock Debian 12 machine: whatever else this machine has first on PATH is not needed.
DEBIAN_PATH := /usr/sbin:/usr/bin:/sbin:/bin

test-deps:
	env PATH=$(DEBIAN_PATH) scripts/install-deps.sh test
	env PATH=$(DEBIAN_PATH) scripts/install-test-broker.sh

build: deps
	$(SWIFT) build $(SWIFT_JOBS)

build-release: deps
	$(RELEASE_BUILD)

## bench-kafka: consume and produce cost, CPU-seconds per 100k messages, release build, real broker
bench-kafka: test-deps build-release
	scripts/with-broker.sh $(RELEASE_BIN) bench kafka

## bench-apns: APNs client (pool, TLS, JWT) vs h2load client CPU per 100k requests against nghttpd, release build
bench-apns: test-deps build-release
	$(RELEASE_BIN) bench apns --requests 1000000 --connections 1 --concurrency 100

## bench-worker: worker CPU-seconds per 100k notifications end to end (campaign and per-user: token credentials over 3 rounds with medians, then certificate credentials, then a slow mock) and peak RSS, release build, real broker
bench-worker: test-deps build-release
	scripts/with-broker.sh sh -c '$(RELEASE_BIN) bench worker --brokers "$$SALVO_TEST_BROKERS" --rounds 3'
	scripts/with-broker.sh sh -c '$(RELEASE_BIN) bench worker --brokers "$$SALVO_TEST_BROKERS" --credential certificate'
	scripts/with-broker.sh sh -c '$(RELEASE_BIN) bench worker --brokers "$$SALVO_TEST_BROKERS" --mode campaign --mock-latency 20ms'

## bench-instructions: the instruction gate: worker instructions per notification in campaign and per-user
## mode against h2load's per request (same requests, same mock), valgrind callgrind, two sizes each, release build, real
## broker, about 15 minutes; exits nonzero when a target is missed (BENCH_REPORT_ONLY=1 only reports)
bench-instructions: test-deps build-release
	scripts/with-broker.sh scripts/bench-instructions.sh $(RELEASE_BIN)

## bench-jobs: the job decoder's CPU-seconds per 100k jobs (per-user and campaign shapes) against JSONSerialization, release build
bench-jobs: build-release
	$(RELEASE_BIN) bench jobs

## bench-mock: mock APNs vs nghttpd server CPU per 100k requests (h2load, TLS, release build)
bench-mock: deps build-release
	scripts/bench-mock.sh $(RELEASE_BIN)

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= job-decoder apns-response mock-request mock-scenario worker-configuration
FUZZ_BIN := .build-fuzz/release/SalvoFuzz

## fuzz: build the libFuzzer binary (the package in Fuzz/, -sanitize=fuzzer, release, scratch .build-fuzz/, linked by lld:
## Debian's gold crashes on it) and run each target for FUZZ_SECONDS (default 60) from its committed corpus
## Fuzz/Corpus/TARGET; new inputs go to .build-fuzz/corpus/TARGET, crashes to .build-fuzz/crashes/TARGET/
## (minimize one into Fuzz/Corpus, see docs/benchmarks.md)
fuzz: deps
	$(SWIFT) build --package-path Fuzz --scratch-path .build-fuzz -c release -Xswiftc -sanitize=fuzzer \
	  -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --product SalvoFuzz $(SWIFT_JOBS)
	@for target in $(FUZZ_TARGETS); do \
	  mkdir -p .build-fuzz/corpus/$$target .build-fuzz/crashes/$$target; \
	  echo "== fuzz $$target for $(FUZZ_SECONDS) s"; \
	  SALVO_FUZZ_TARGET=$$target $(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
	    -artifact_prefix=.build-fuzz/crashes/$$target/ .build-fuzz/corpus/$$target Fuzz/Corpus/$$target || exit 1; \
	done

clean:
	rm -rf .build .build-fuzz
