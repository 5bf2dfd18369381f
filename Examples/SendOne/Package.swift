// swift-tools-version:6.0
import PackageDescription

/// Where Salvo comes from: `SALVO_PACKAGE_URL` when set (the test points it at a tagged clone of
/// the working tree), else the repository this example sits in, whose tags are Salvo's releases.
let salvoURL =
    Context.environment["SALVO_PACKAGE_URL"]
    ?? "file://" + Context.packageDirectory.split(separator: "/").dropLast(2).map { "/" + $0 }.joined()
/// SwiftPM names a dependency after the last part of its URL.
let salvoPackage = String(salvoURL.split(separator: "/").last ?? "salvo").replacing(".git", with: "")

let package = Package(
    name: "SendOne",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: salvoURL, from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .executableTarget(
            name: "SendOne",
            dependencies: [
                .product(name: "SalvoAPNs", package: salvoPackage),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        )
    ]
)
