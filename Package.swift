// swift-tools-version:6.0
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode (strict concurrency), explicit
/// existentials, so `any` marks every dynamic dispatch on the hot path, and member import
/// visibility, so a file uses only members of modules it imports itself (every dependency is
/// declared where it is used, and in `dependencies:` below).
///
/// No unsafe flags on any target: SwiftPM refuses a package as a versioned dependency when a
/// target of a product it uses has them, and exclusivity checks stay on in every debug build (the
/// tests trap on a violation). The code generation flags the shipped binary is built with are
/// given on the command line (`RELEASE_FLAGS` in the Makefile, docs/performance-notes.md).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let x509 = Target.Dependency.product(name: "X509", package: "swift-certificates")
// PEM and DER documents: the certificate code reads `pemString` and parses DER itself.
let asn1 = Target.Dependency.product(name: "SwiftASN1", package: "swift-asn1")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
let histogram = Target.Dependency.product(name: "Histogram", package: "hdrhistogram-swift")
let yams = Target.Dependency.product(name: "Yams", package: "Yams")
let dequeModule = Target.Dependency.product(name: "DequeModule", package: "swift-collections")
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")

let package = Package(
    name: "salvo",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "salvo", targets: ["salvo"]),
        .library(name: "SalvoKafka", targets: ["SalvoKafka"]),
        .library(name: "SalvoHTTP2", targets: ["SalvoHTTP2"]),
        .library(name: "SalvoAPNs", targets: ["SalvoAPNs"]),
        .library(name: "SalvoWorker", targets: ["SalvoWorker"]),
        .library(name: "SalvoMockAPNs", targets: ["SalvoMockAPNs"]),
        .library(name: "SalvoLoadTest", targets: ["SalvoLoadTest"]),
        // For the libFuzzer binaries of the separate package in Fuzz/ (`make fuzz`).
        .library(name: "SalvoFuzzing", targets: ["SalvoFuzzing"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    ],
    targets: [
        // MARK: C libraries (Debian packages, found through pkg-config)
        .systemLibrary(
            name: "CRdKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"]), .brew(["librdkafka"])]
        ),
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]
        ),

        // MARK: Libraries
        // The primitives more than one module needs (the slot table, the JSON writer, the
        // `Duration` conversions, C string buffers), below every other Salvo module. Pure Swift; not
        // a product: the libraries that use it bring it along.
        .target(
            name: "SalvoPrimitives",
            dependencies: [nioCore],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SalvoKafka",
            dependencies: ["SalvoPrimitives", "CRdKafka", nioCore, logging, dequeModule],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SalvoHTTP2",
            dependencies: ["SalvoPrimitives", "CNGHTTP2", nioCore],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SalvoAPNs",
            dependencies: [
                "SalvoPrimitives", "SalvoHTTP2", nioCore, nioPosix, nioSSL, crypto, x509, asn1, logging, metrics,
                dequeModule,
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SalvoWorker",
            dependencies: [
                // SalvoHTTP2: the engine reads the HTTP/2 session's kept-headers statistic.
                "SalvoPrimitives", "SalvoAPNs", "SalvoHTTP2", "SalvoKafka", crypto, nioCore, nioPosix, nioSSL, nioHTTP1,
                logging, metrics,
                dequeModule, yams,
                prometheus, serviceLifecycle,
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SalvoMockAPNs",
            dependencies: [
                "SalvoPrimitives", "SalvoHTTP2", "SalvoAPNs", nioCore, nioPosix, nioSSL, nioHTTP1, crypto, x509, asn1,
                logging, prometheus, yams, serviceLifecycle,
            ],
            swiftSettings: swiftSettings
        ),

        // The load generator and its measurement (`salvo loadtest`, and in-process for `salvo demo`).
        .target(
            name: "SalvoLoadTest",
            dependencies: [
                "SalvoPrimitives", "SalvoKafka", "SalvoAPNs", "SalvoMockAPNs", "SalvoWorker", nioCore, logging,
                histogram,
                yams,
            ],
            swiftSettings: swiftSettings
        ),

        // The fuzzing entry points (issue 20): one per kind of hostile input, driven by the
        // libFuzzer binaries in Fuzz/ and replayed over the committed corpus by SalvoFuzzingTests.
        .target(
            name: "SalvoFuzzing",
            dependencies: ["SalvoWorker", "SalvoAPNs", "SalvoMockAPNs", nioCore, yams],
            swiftSettings: swiftSettings
        ),

        // Helpers shared by test targets (repository files, metric names of the deployment
        // artifacts, a manual clock, child processes, a test PKI); not a product.
        .target(
            name: "SalvoTestSupport",
            dependencies: [yams, nioCore, nioPosix, nioSSL, crypto, x509, asn1],
            swiftSettings: swiftSettings
        ),

        // MARK: The executable
        .executableTarget(
            name: "salvo",
            dependencies: [
                "SalvoPrimitives", "SalvoKafka", "SalvoHTTP2", "SalvoAPNs", "SalvoMockAPNs", "SalvoWorker",
                "SalvoLoadTest", argumentParser, logging, yams,
                serviceLifecycle, unixSignals, nioCore, nioPosix, nioSSL,
            ],
            swiftSettings: swiftSettings,
            // jemalloc replaces glibc's malloc for the whole process (docs/decisions.md): records
            // and jobs are allocated on librdkafka's and the lane's threads and freed on an event
            // loop, a cross-thread free that glibc serves from the allocating arena's bins under
            // its lock (~430 instructions per allocation in a per-user push).
            linkerSettings: [.linkedLibrary("jemalloc")]
        ),

        // MARK: Tests
        .testTarget(
            name: "SalvoPrimitivesTests",
            dependencies: ["SalvoPrimitives"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SalvoKafkaTests",
            dependencies: ["SalvoKafka", "SalvoPrimitives", "CRdKafka", "SalvoTestSupport", logging],
            swiftSettings: swiftSettings
        ),
        // Runs the built `salvo` executable as a subprocess against the test broker, and builds
        // Examples/SendOne against a tagged repository of the working tree.
        .testTarget(
            name: "SalvoCLITests",
            dependencies: [
                "SalvoKafka", "SalvoAPNs", "SalvoMockAPNs", "SalvoLoadTest", "SalvoWorker", "SalvoTestSupport", logging,
                nioCore,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SalvoHTTP2Tests",
            dependencies: [
                "SalvoHTTP2", "CNGHTTP2", "SalvoTestSupport", nioCore, nioPosix, nioSSL, x509, crypto,
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SalvoAPNsTests",
            dependencies: [
                "SalvoAPNs", "SalvoHTTP2", "SalvoTestSupport", nioCore, nioPosix, nioSSL, crypto, x509, asn1, logging,
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Loopback tests of the APNs connection and pool against real HTTP/2 servers (the mock
        // APNs, nghttpd, and a scripted server on SalvoHTTP2's server mode), kept apart so the
        // unit tests stay fast.
        .testTarget(
            name: "SalvoAPNsLiveTests",
            dependencies: [
                "SalvoAPNs", "SalvoHTTP2", "SalvoMockAPNs", "SalvoTestSupport", nioCore, nioPosix, nioSSL, crypto, x509,
                logging,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SalvoWorkerTests",
            dependencies: [
                "SalvoWorker", "SalvoPrimitives", "SalvoAPNs", "SalvoKafka", "SalvoMockAPNs", "SalvoTestSupport",
                nioCore,
                nioPosix,
                nioSSL, crypto,
                x509, asn1, nioHTTP1, prometheus, serviceLifecycle, logging, metrics, yams,
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Parses the deployment artifacts (docker/, ops/), runs promtool on the alert rules and
        // checks every metric they name against docs/metrics.md.
        .testTarget(
            name: "SalvoOpsTests",
            dependencies: ["SalvoTestSupport", yams],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SalvoLoadTestTests",
            dependencies: [
                "SalvoLoadTest", "SalvoKafka", "SalvoAPNs", "SalvoMockAPNs", nioCore, nioPosix, crypto, logging,
            ],
            swiftSettings: swiftSettings
        ),
        // Replays Fuzz/Corpus (seeds and every crash the fuzzers found) through the entry points.
        .testTarget(
            name: "SalvoFuzzingTests",
            dependencies: ["SalvoFuzzing", "SalvoTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SalvoMockAPNsTests",
            dependencies: [
                "SalvoMockAPNs", "SalvoAPNs", "SalvoHTTP2", "SalvoTestSupport", nioCore, nioPosix, nioSSL, crypto, x509,
                logging,
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
