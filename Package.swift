// swift-tools-version: 6.3
import PackageDescription

// Every target opts into the same upcoming features so the API surface is explicit:
// imports are internal unless spelled `public import`, and existentials say `any`.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The tests' own code (the test targets and their two helper targets) is built with line tables
// only, not full debug info: backtraces and test failures still name the file and line, and the
// test modules build in a third less time (a clean rebuild of them on two cores: 142 → 92 s;
// docs/development/testing.md, "Where the build's time goes"). To step through a test in a
// debugger with its variables, build with LOCSIM_TEST_DEBUG_INFO=full. The libraries and the
// command keep SwiftPM's full debug info.
let testCode: [SwiftSetting] =
    Context.environment["LOCSIM_TEST_DEBUG_INFO"] == "full"
    ? strict : strict + [.unsafeFlags(["-gline-tables-only"], .when(configuration: .debug))]

let package = Package(
    name: "locsim",
    // The game's own floor (its seed targets iOS 17 and macOS 14): MapViewModel's @Observable
    // needs exactly these. The package's lock is `Locked` (LocationCore), not
    // Synchronization.Mutex, which would demand iOS 18 and macOS 15.
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    // What an app developer imports (the game's own test targets: the map logic, the harness, the
    // formats) and the command. Everything else is shared between this package's targets at
    // `package` access (scripts/public-symbols.sh --check keeps it so).
    products: [
        .executable(name: "locsim", targets: ["locsim"]),
        .library(name: "LocationCore", targets: ["LocationCore"]),
        .library(name: "GPXFormat", targets: ["GPXFormat"]),
        .library(name: "NMEAFormat", targets: ["NMEAFormat"]),
        .library(name: "MapFeature", targets: ["MapFeature"]),
        .library(name: "LocationTestSupport", targets: ["LocationTestSupport"]),
    ],
    // What the `locsim` command links beyond replay, simulate, index and gpsd. Both are on by
    // default; `swift build --disable-default-traits` leaves them out, and the main job
    // (scripts/main-job.sh) builds that way: it only replays, and skipping Hummingbird, SwiftNIO
    // and postgres-nio (with BoringSSL) takes most of the release build time away.
    traits: [
        .trait(name: "Server", description: "locsim serve, swarm --server, nmea serve and the live feeds (Hummingbird, SwiftNIO)."),
        .trait(name: "PostGIS", description: "--postgres for index import/stats and serve (postgres-nio)."),
        .default(enabledTraits: ["Server", "PostGIS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Only NearbyServer, the command and NearbyServerTests see these (build cost: see docs/guides/serve.md).
        // Without its default ConfigurationSupport trait: locsim reads no swift-configuration
        // (FullFoundation, the other default, is kept). The tests reach the server through a
        // harness of their own (Tests/NearbyServerTests/ServerHarness.swift), not HummingbirdTesting,
        // which would bring AsyncHTTPClient, HTTP/2, SOCKS and swift-configuration into the build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // HTTP Types over NIO's HTTP/1 codec: already in the build through Hummingbird; NearbyServer's
        // connection guard sits between the two.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // Counters read and bumped from every event loop (ServerMetrics, SwarmHTTPClient); already
        // in the build through SwiftNIO.
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        // Already built for postgres-nio and Hummingbird's TLS; NearbyServer keys its token names with it.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // gzip for serve's answers (zlib through NIO ByteBuffers; system zlib, Debian zlib1g-dev).
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // Only LocationPostGIS, the command and its tests see this (build cost: see docs/guides/postgis.md).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Tests only: child processes (gpsd, PostgreSQL, gpsd clients, the command) are awaited,
        // never waited for on the cooperative pool (LocSimTestHelpers' ChildProcess).
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    ],
    targets: [
        // MARK: Libraries
        .target(name: "LocationCore", swiftSettings: strict),
        .target(name: "GPXFormat", dependencies: ["LocationCore"], swiftSettings: strict),
        .target(name: "NMEAFormat", dependencies: ["LocationCore"], swiftSettings: strict),
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"]), .brew(["gpsd"])]),
        .target(name: "LocationGPSD", dependencies: ["LocationCore", "CGPS"], swiftSettings: strict),
        // The phone between the receiver and the app (scenarios) applies MapFeature's delivery rules.
        .target(
            name: "LocationSimulation", dependencies: ["LocationCore", "GPXFormat", "NMEAFormat", "MapFeature"], swiftSettings: strict),
        .target(
            name: "LocationTestSupport", dependencies: ["LocationCore", "MapFeature", "LocationSimulation"], swiftSettings: strict),
        .target(name: "MapFeature", dependencies: ["LocationCore"], swiftSettings: strict),
        // System SQLite (Debian libsqlite3-dev); only LocationIndex imports it.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // What every place store shares: the place-file parsers, the search cap, the ranking, the
        // query's checks and errors (no SQLite, no NIO), so the SQLite index and PostGIS agree.
        .target(name: "Places", dependencies: ["LocationCore"], swiftSettings: strict),
        .target(name: "LocationIndex", dependencies: ["LocationCore", "Places", "CSQLite"], swiftSettings: strict),
        // `locsim swarm`: many players' fetch rule, in virtual time (no networking here).
        .target(
            name: "Swarm", dependencies: ["LocationCore", "LocationSimulation", "MapFeature", "LocationIndex"],
            swiftSettings: strict),
        // Why a SwiftNIO client could not connect, in the system's words: one wording for every
        // client that connects (swarm's HTTP, the Android console bridge).
        .target(
            name: "ConnectFailure",
            dependencies: [
                "LocationCore", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // `locsim swarm` against a server: the HTTP client (NIOHTTP1, already built for `locsim serve`).
        .target(
            name: "SwarmHTTP",
            dependencies: [
                "Swarm", "LocationCore", "MapFeature", "ConnectFailure",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: strict),
        // The HTML pages (replay, swarm and audit reports, the live map): templates, one stylesheet
        // and one SVG renderer, compiled into the binary (docs/development/pages.md).
        .target(
            name: "MapPages",
            exclude: ["page.css", "map.js", "replay.html", "swarm.html", "live.html", "audit.html"],
            swiftSettings: strict,
            plugins: ["EmbedTextPlugin"]),
        // `locsim serve`: the game's nearby contract over any LocationRepository, faults, the audit.
        .target(
            name: "NearbyServer",
            dependencies: [
                "LocationCore", "MapFeature", "LocationIndex", "MapPages", "ConnectFailure",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            // The OpenAPI document `GET /openapi.json` serves, compiled in as a string constant.
            exclude: ["Contract/openapi.json"],
            swiftSettings: strict,
            plugins: ["EmbedTextPlugin"]),
        // Text files as string constants at build time (the pages above, the OpenAPI document):
        // SwiftPM's `.embedInCode` makes an array literal of the bytes, which took 26 s to
        // compile for the OpenAPI document (0.2 s so).
        .executableTarget(name: "EmbedText", swiftSettings: strict),
        .plugin(
            name: "EmbedTextPlugin", capability: .buildTool(), dependencies: ["EmbedText"], path: "Sources/EmbedTextPlugin"),

        // Simulated players as live feeds: the gpsd protocol server over SwiftNIO (already built for
        // Hummingbird), run in `locsim serve`'s service group.
        .target(
            name: "LocationFeed",
            dependencies: [
                "LocationCore", "NMEAFormat", "LocationSimulation", "MapPages", "ConnectFailure",
                // The control API's routes (PlayerControlAPI.addRoutes), on the server's router.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The iOS Simulator bridge runs `xcrun simctl` per fix as a child it awaits.
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            swiftSettings: strict),

        // The PostGIS LocationRepository and import (`--postgres`), over postgres-nio.
        .target(
            name: "LocationPostGIS",
            dependencies: [
                "LocationCore", "Places", "ConnectFailure",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // MARK: The command (the only composition root)
        // All of the command but its entry point, so the option parsers can be fuzzed in-process
        // (scripts/fuzz) and the tests can reach its internals.
        .target(
            name: "LocSimCommand",
            dependencies: [
                "LocationCore", "GPXFormat", "NMEAFormat", "LocationGPSD", "LocationIndex", "LocationSimulation",
                "MapFeature", "Swarm", "MapPages",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .target(name: "NearbyServer", condition: .when(traits: ["Server"])),
                .target(name: "SwarmHTTP", condition: .when(traits: ["Server"])),
                .target(name: "LocationFeed", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server", "PostGIS"])),
                .target(name: "LocationPostGIS", condition: .when(traits: ["PostGIS"])),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "locsim", dependencies: ["LocSimCommand"], swiftSettings: strict),

        // MARK: Tests
        // Shared by the project's own test targets: package paths, ../shared/data, child processes
        // (swift-subprocess), a real gpsd fed over loopback TCP, PostgreSQL, loopback HTTP.
        .target(
            name: "LocSimTestHelpers",
            dependencies: [
                "LocationCore", "LocationGPSD", "LocationSimulation", .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/LocSimTestHelpers",
            swiftSettings: testCode),
        // The `locsim` command under test: running it, reading its output, its JSONL schema.
        .target(
            name: "CommandTestHelpers", dependencies: ["LocSimTestHelpers", "LocSimCommand"], path: "Tests/CommandTestHelpers",
            swiftSettings: testCode),
        .testTarget(
            name: "LocationCoreTests", dependencies: ["LocationCore", "LocSimTestHelpers"],
            resources: [.copy("Fixtures")], swiftSettings: testCode),
        .testTarget(
            name: "GPXFormatTests", dependencies: ["GPXFormat", "LocationCore", "LocSimTestHelpers"],
            resources: [.copy("Fixtures")], swiftSettings: testCode),
        .testTarget(
            name: "NMEAFormatTests", dependencies: ["NMEAFormat", "LocationCore", "LocSimTestHelpers"],
            resources: [.copy("Fixtures")], swiftSettings: testCode),
        .testTarget(
            name: "LocationTestSupportTests",
            dependencies: ["LocationTestSupport", "LocationCore", "MapFeature", "GPXFormat", "LocSimTestHelpers"],
            swiftSettings: testCode),
        .testTarget(
            name: "LocationGPSDTests",
            dependencies: [
                "LocationGPSD", "LocationCore", "LocationTestSupport", "LocSimTestHelpers", "GPXFormat", "NMEAFormat",
            ],
            resources: [.copy("Fixtures")], swiftSettings: testCode),
        .testTarget(
            name: "LocationSimulationTests",
            dependencies: [
                "LocationSimulation", "LocationCore", "GPXFormat", "NMEAFormat", "LocationTestSupport", "LocSimTestHelpers",
                "MapFeature",
            ],
            exclude: ["Fixtures", "Scripts"], swiftSettings: testCode),
        .testTarget(
            name: "MapFeatureTests",
            dependencies: [
                "MapFeature", "LocationCore", "LocationTestSupport", "LocSimTestHelpers", "LocationIndex",
                "LocationSimulation", "GPXFormat",
            ],
            resources: [.copy("Fixtures")], swiftSettings: testCode),
        .testTarget(
            name: "LocationIndexTests", dependencies: ["LocationIndex", "Places", "LocationCore", "LocSimTestHelpers"],
            resources: [.copy("Fixtures")], swiftSettings: testCode),
        .testTarget(
            name: "NearbyServerTests",
            dependencies: [
                "NearbyServer", "LocationCore", "MapFeature", "LocationIndex", "LocationTestSupport", "LocSimTestHelpers",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: testCode),
        .testTarget(
            name: "LocationFeedTests",
            dependencies: [
                "LocationFeed", "LocationCore", "LocationSimulation", "NMEAFormat", "LocationGPSD", "LocationTestSupport",
                "LocSimTestHelpers", "NearbyServer", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testCode),
        .testTarget(
            name: "LocationPostGISTests",
            dependencies: ["LocationPostGIS", "LocationCore", "LocSimTestHelpers", .product(name: "NIOCore", package: "swift-nio")], swiftSettings: testCode),
        .testTarget(
            name: "SwarmTests",
            dependencies: [
                "Swarm", "SwarmHTTP", "LocationCore", "MapFeature", "LocationSimulation", "LocationIndex", "LocationTestSupport",
                "LocSimTestHelpers", "NearbyServer", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: testCode),
        .testTarget(
            // Depending on the executable makes `swift test` rebuild the `locsim` these tests run
            // (beside the test bundle), so they never run a stale binary.
            name: "locsimTests",
            dependencies: ["locsim", "LocSimCommand", "LocationCore", "NMEAFormat", "LocSimTestHelpers", "CommandTestHelpers", "MapPages"],
            exclude: ["Golden"], swiftSettings: testCode),
        // Suites that need real components started by the tests: gpsd (and gpsd's clients:
        // gpspipe, Python's gps), PostgreSQL + PostGIS, headless Chromium. `swift test --filter
        // IntegrationTests` runs only these, `--skip IntegrationTests` everything else.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "locsim", "LocSimCommand", "LocationCore", "LocationGPSD", "LocationFeed", "LocationPostGIS", "LocationIndex", "Places",
                "LocationSimulation", "LocationTestSupport", "GPXFormat", "NMEAFormat", "LocSimTestHelpers", "CommandTestHelpers",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testCode),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: Benchmarks (release builds; see docs/benchmarks/)
// Only with LOCSIM_BENCHMARKS=1 (the scripts set it), so the tests never build them; .ci/run
// builds them (debug) as a step of its own, so that none stops compiling unseen.
if Context.environment["LOCSIM_BENCHMARKS"] != nil {
    // IndexBenchmark's `ranges`, `floor` and `rtree` reach the index's internals with
    // `@testable import` rather than through API the library would carry only for them.
    // Products built for users (`locsim`) are built without LOCSIM_BENCHMARKS.
    if let index = package.targets.first(where: { $0.name == "LocationIndex" }) {
        index.swiftSettings = (index.swiftSettings ?? []) + [.unsafeFlags(["-enable-testing"])]
    }
    package.targets += [
        .executableTarget(
            name: "GPXBenchmark", dependencies: ["GPXFormat", "LocationCore"], path: "Benchmarks/GPXBenchmark", swiftSettings: strict),
        .executableTarget(
            name: "NMEABenchmark", dependencies: ["NMEAFormat", "LocationCore"], path: "Benchmarks/NMEABenchmark",
            exclude: ["run.sh", "pynmea2_read.py"], swiftSettings: strict),
        .executableTarget(
            name: "GPSDLatency", dependencies: ["LocationGPSD", "LocationCore", "NMEAFormat", "LocSimTestHelpers"],
            path: "Benchmarks/GPSDLatency", swiftSettings: strict),
        .executableTarget(
            name: "ReplayBenchmark",
            dependencies: ["LocationSimulation", "LocationCore", "GPXFormat", "LocationTestSupport"],
            path: "Benchmarks/ReplayBenchmark", swiftSettings: strict),
        .executableTarget(
            name: "MapBenchmark",
            dependencies: ["MapFeature", "LocationCore", "LocationTestSupport", "LocationIndex", "GPXFormat"],
            path: "Benchmarks/MapBenchmark", exclude: ["map_replay_reference.py"], swiftSettings: strict),
        .executableTarget(
            name: "SwarmBenchmark", dependencies: ["Swarm", "LocationCore"], path: "Benchmarks/SwarmBenchmark",
            swiftSettings: strict),
        .executableTarget(
            name: "IndexBenchmark", dependencies: ["LocationIndex", "LocationCore", "CSQLite"],
            path: "Benchmarks/IndexBenchmark", swiftSettings: strict),
        .executableTarget(
            name: "HelloServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/HelloServer", swiftSettings: strict),
    ]
}

// MARK: Documentation (scripts/docs.sh sets LOCSIM_DOCS=1)
// swift-docc-plugin for `swift package generate-documentation`: a development tool, so an app that
// depends on locsim neither resolves nor downloads it.
if Context.environment["LOCSIM_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

// MARK: Fuzzing (scripts/fuzz.sh sets LOCSIM_FUZZ=1)
// The modules whose readers the fuzz package drives, as products only for it (scripts/fuzz,
// docs/development/fuzzing.md; it reaches their package-level parsers through @testable import):
// they are not API.
if Context.environment["LOCSIM_FUZZ"] != nil {
    for target in ["LocSimCommand", "Places", "LocationGPSD", "LocationSimulation"] {
        package.products.append(.library(name: target, targets: [target]))
    }
}

// MARK: Linking
// Everything this package links (the command, the tests, the build tool, the benchmarks) links with
// the toolchain's own lld rather than the system's default, Debian's ld.gold: gold stops with
// "internal error in format_file_lineno" whenever it has something to say about an object with
// DWARF 5 line tables (clang's sanitizer runtimes; once in CI, a debug build of the EmbedText
// tool), so the real message never shows; and it is slower (docs/development/testing.md, "Where
// the build's time goes"). One linker for every build: the sanitizer and fuzz builds need it.
for target in package.targets where target.type == .executable || target.type == .test {
    target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux]))]
}
