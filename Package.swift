// swift-tools-version: 6.3
import PackageDescription

// Every target opts into the same upcoming features so the API surface is explicit:
// imports are internal unless spelled `public import`, and existentials say `any`.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "locsim",
    products: [
        .executable(name: "locsim", targets: ["locsim"]),
        .library(name: "LocationCore", targets: ["LocationCore"]),
        .library(name: "GPXFormat", targets: ["GPXFormat"]),
        .library(name: "LocationTestSupport", targets: ["LocationTestSupport"]),
        .library(name: "LocationIndex", targets: ["LocationIndex"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // MARK: Libraries
        .target(name: "LocationCore", swiftSettings: strict),
        .target(name: "GPXFormat", dependencies: ["LocationCore"], swiftSettings: strict),
        .target(name: "LocationTestSupport", dependencies: ["LocationCore"], swiftSettings: strict),
        // System SQLite (Debian libsqlite3-dev); only LocationIndex imports it.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "LocationIndex", dependencies: ["LocationCore", "CSQLite"], swiftSettings: strict),

        // MARK: The command (the only composition root)
        .executableTarget(
            name: "locsim",
            dependencies: [
                "LocationCore", "GPXFormat", "LocationIndex",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),

        // MARK: Tests
        .testTarget(
            name: "LocationCoreTests", dependencies: ["LocationCore"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "GPXFormatTests", dependencies: ["GPXFormat", "LocationCore"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "LocationTestSupportTests", dependencies: ["LocationTestSupport", "LocationCore"],
            swiftSettings: strict),
        .testTarget(
            name: "LocationIndexTests", dependencies: ["LocationIndex", "LocationCore"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "locsimTests", dependencies: ["LocationCore", "GPXFormat"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

// Benchmarks are built only on request (LOCSIM_BENCHMARKS=1), so CI never compiles them.
if Context.environment["LOCSIM_BENCHMARKS"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "IndexBenchmark", dependencies: ["LocationIndex", "LocationCore"],
            path: "Benchmarks/IndexBenchmark", swiftSettings: strict))
}
