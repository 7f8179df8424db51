// SwarmBenchmark: how long `locsim swarm --virtual` takes for many players over game time, and
// how much memory each player costs. Build and run in release:
//
//   LOCSIM_BENCHMARKS=1 swift build -c release --product SwarmBenchmark
//   .build/release/SwarmBenchmark --players 100000 --seconds 3600 --runs 3
//   .build/release/SwarmBenchmark --players 100000 --seconds 3600 --runs 1 --every-fix
//
// One line per run, then the median; memory is the resident set (VmRSS, VmHWM) read from
// /proc/self/status before and after. Results are recorded in docs/benchmarks/swarm.md.

import Foundation
import LocationCore
import Swarm

/// `VmHWM` (peak resident set) and `VmRSS` from /proc/self/status, in KiB.
func memory() -> (peak: Double, current: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (.nan, .nan) }
    func field(_ name: String) -> Double {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return .nan }
        return line.split(separator: " ").compactMap { Double($0) }.first ?? .nan
    }
    return (field("VmHWM"), field("VmRSS"))
}

func seconds(_ duration: Duration) -> Double {
    duration.fractionalSeconds
}

var players = 100_000
var gameSeconds = 3600
var runs = 3
var threads = ProcessInfo.processInfo.activeProcessorCount
var everyFix = false
var mix = "walk=0.7,cycle=0.2,drive=0.1"
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--players": players = Int(arguments.next() ?? "") ?? players
    case "--seconds": gameSeconds = Int(arguments.next() ?? "") ?? gameSeconds
    case "--runs": runs = Int(arguments.next() ?? "") ?? runs
    case "--threads": threads = Int(arguments.next() ?? "") ?? threads
    case "--mix": mix = arguments.next() ?? mix
    case "--every-fix": everyFix = true
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
        exit(2)
    }
}

let configuration = try VirtualSwarm.Configuration(
    players: players, durationSeconds: gameSeconds, seed: 1, mix: SwarmMix(parsing: mix),
    area: SwarmArea(center: Coordinate(latitude: 35.6812, longitude: 139.7671), radius: 3000),
    evaluatesEveryFix: everyFix)
let swarm = VirtualSwarm(configuration: configuration)
print("players \(players), game time \(gameSeconds) s, mix \(mix), threads \(threads), every fix \(everyFix)")
print("state per player (struct + bucket slot): \(VirtualSwarm.bytesPerPlayer) bytes")
print("run  seconds  fixes/s      evaluations  requests  rss-before-MiB  rss-after-MiB  peak-MiB  peak-delta-B/player")
var times: [Double] = []
var last: SwarmLoad?
for run in 1...runs {
    let before = memory()
    let clock = ContinuousClock()
    let start = clock.now
    let load = await swarm.run(shards: threads)
    let elapsed = seconds(clock.now - start)
    let after = memory()
    times.append(elapsed)
    if let last, last != load { print("ERROR: run \(run) differs from the one before") }
    last = load
    let perPlayer = (after.peak - before.current) * 1024 / Double(players)
    print(
        String(
            format: "%3d  %7.2f  %11.0f  %11d  %8d  %14.1f  %13.1f  %8.1f  %19.0f", run, elapsed,
            Double(load.fixes) / elapsed, load.evaluations, load.rates(nil).total, before.current / 1024,
            after.current / 1024, after.peak / 1024, perPlayer))
}
let sorted = times.sorted()
print("median \(DecimalText.fixed(sorted[sorted.count / 2], decimals: 2)) s (min \(DecimalText.fixed(sorted[0], decimals: 2)), max \(DecimalText.fixed(sorted[sorted.count - 1], decimals: 2)))")
if let last { print(last.text(configuration: configuration), terminator: "") }
