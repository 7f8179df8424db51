// swift-tools-version: 6.3
// libFuzzer targets for locsim's readers. Not part of the main build: scripts/fuzz.sh builds this
// package with `-sanitize=fuzzer,address` and `-enable-testing` (the targets reach a few internal
// parsers through `@testable import`). See docs/development/fuzzing.md.
import PackageDescription

// The options target parses every command, so it is built with locsim's default traits (serve's and
// swarm --server's options); the CI smoke sets LOCSIM_FUZZ_TRAITS=none to leave SwiftNIO,
// Hummingbird and postgres-nio out of its sanitizer build (minutes on two cores).
let traits: Set<Package.Dependency.Trait> = Context.environment["LOCSIM_FUZZ_TRAITS"] == "none" ? [] : [.defaults]

let package = Package(
    name: "locsim-fuzz",
    dependencies: [.package(name: "locsim", path: "../..", traits: traits)],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzGPX", dependencies: ["FuzzDriver", .product(name: "GPXFormat", package: "locsim")]),
        .executableTarget(name: "FuzzNMEA", dependencies: ["FuzzDriver", .product(name: "NMEAFormat", package: "locsim")]),
        .executableTarget(name: "FuzzPlaces", dependencies: ["FuzzDriver", .product(name: "Places", package: "locsim")]),
        .executableTarget(
            name: "FuzzGPSDReport", dependencies: ["FuzzDriver", .product(name: "LocationGPSD", package: "locsim")]),
        // The scenario reader, and the phone a scenario it accepts describes.
        .executableTarget(
            name: "FuzzScenario",
            dependencies: [
                "FuzzDriver", .product(name: "LocationSimulation", package: "locsim"),
                .product(name: "LocationCore", package: "locsim"),
            ]),
        // The command's option parsers (the LocSimCommand product exists only with LOCSIM_FUZZ=1).
        .executableTarget(
            name: "FuzzOptions", dependencies: ["FuzzDriver", .product(name: "LocSimCommand", package: "locsim")]),
    ]
)

// The toolchain's lld links the targets, as it links the main package's (its Package.swift says why:
// Debian's ld.gold stops on the sanitizer runtime's debug information).
for target in package.targets where target.type == .executable {
    target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux]))]
}
