// swift-tools-version: 6.3
// libFuzzer targets for locsim's readers. Not part of the main build: scripts/fuzz.sh builds this
// package with `-sanitize=fuzzer,address` and `-enable-testing` (the targets reach a few internal
// parsers through `@testable import`). See docs/fuzzing.md.
import PackageDescription

let package = Package(
    name: "locsim-fuzz",
    dependencies: [.package(name: "locsim", path: "../..")],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzGPX", dependencies: ["FuzzDriver", .product(name: "GPXFormat", package: "locsim")]),
        .executableTarget(name: "FuzzNMEA", dependencies: ["FuzzDriver", .product(name: "NMEAFormat", package: "locsim")]),
        .executableTarget(name: "FuzzPlaces", dependencies: ["FuzzDriver", .product(name: "LocationIndex", package: "locsim")]),
        .executableTarget(
            name: "FuzzGPSDReport", dependencies: ["FuzzDriver", .product(name: "LocationGPSD", package: "locsim")]),
    ]
)
