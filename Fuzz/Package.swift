// swift-tools-version:6.0
import PackageDescription

// libFuzzer binaries over Salvo's fuzzing entry points (`SalvoFuzzing` in the main package).
// A package of its own so that the main build never compiles them: they need `-sanitize=fuzzer`,
// which instruments every Swift module for coverage and links libFuzzer. `make fuzz` builds and
// runs them; see docs/benchmarks.md, "Fuzzing".
let package = Package(
    name: "salvo-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "salvo", path: ".."),
    ],
    targets: [
        // The declaration of libFuzzer's driver (its library comes with -sanitize=fuzzer).
        .target(name: "CLibFuzzer"),
        .executableTarget(
            name: "SalvoFuzz",
            dependencies: ["CLibFuzzer", .product(name: "SalvoFuzzing", package: "salvo")]
        ),
    ]
)
