// ReplayBenchmark: how fast a long replay runs in virtual time, with how much memory, and how
// closely a real-time replay keeps to its schedule. Build and run in release:
//
//   LOCSIM_BENCHMARKS=1 swift run -c release ReplayBenchmark virtual
//   LOCSIM_BENCHMARKS=1 swift run -c release ReplayBenchmark realtime --minutes 10 --factor 10
//   LOCSIM_BENCHMARKS=1 swift run -c release ReplayBenchmark realtime --minutes 10 --factor 1
//
// Results and the exact commands are recorded in docs/benchmarks/replay.md.

import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocationTestSupport

// MARK: - Helpers

/// `VmHWM` (peak resident set) and `VmRSS` from /proc/self/status, in MiB.
func memory() -> (peak: Double, current: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (.nan, .nan) }
    func field(_ name: String) -> Double {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return .nan }
        let kib = line.split(separator: " ").compactMap { Double($0) }.first ?? .nan
        return kib / 1024
    }
    return (field("VmHWM"), field("VmRSS"))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func milliseconds(_ duration: Duration) -> Double {
    duration.fractionalSeconds * 1000
}

func format(_ value: Double, _ digits: Int = 2) -> String { DecimalText.fixed(value, decimals: digits) }

/// A 1 Hz walk of `count` points, 1.4 m/s on a slowly turning heading, with elevation.
func walkTrack(points count: Int) -> ReplayPath {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    var position = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)
    var points: [GPXPoint] = []
    points.reserveCapacity(count)
    for k in 0..<count {
        points.append(GPXPoint(coordinate: position, elevation: 20 + Double(k % 100) / 10, time: start.addingTimeInterval(Double(k))))
        position = position.destination(distance: 1.4, bearing: Double(k % 3600) / 10)
    }
    return ReplayPath(track: GPXTrack(segments: [points]))
}

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: Double) -> Double {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Double(arguments[i + 1]) else { return value }
    return v
}

// MARK: - 1. A 24 h, 1 Hz track in virtual time with 1 Hz resampling

/// The straightforward alternative: an `AsyncStream` with unbounded buffering, filled by a
/// producer task interpolating the same grid. Same output, but it buffers ahead of the consumer.
func streamBaseline(_ path: ReplayPath) async -> Int {
    let points = path.segments[0]
    let fixes = points.map { $0.fix()! }
    let (stream, continuation) = AsyncStream.makeStream(of: Fix.self, bufferingPolicy: .unbounded)
    let producer = Task {
        var i = 0
        let t0 = fixes[0].time
        let end = fixes[fixes.count - 1].time.timeIntervalSince(t0)
        var g = 0.0
        while g <= end {
            let time = t0.addingTimeInterval(g)
            while i + 1 < fixes.count && fixes[i + 1].time <= time { i += 1 }
            let fix = i + 1 < fixes.count ? Fix.interpolated(from: fixes[i], to: fixes[i + 1], at: time)! : fixes[i]
            continuation.yield(fix)
            g += 1
        }
        continuation.finish()
    }
    var count = 0
    for await _ in stream { count += 1 }
    _ = await producer.value
    return count
}

/// The cases of benchmark 1, each run in its own process so each peak RSS is its own.
let virtualCases = ["init", "virtual", "timed-virtualclock", "asyncstream-baseline"]
let virtualCaseNames = [
    "init": "GPXReplay init only (path -> timeline)",
    "virtual": "GPXReplay, pacing .virtual (init + replay)",
    "timed-virtualclock": "GPXReplay, pacing .timed(1x) on VirtualClock(autoAdvance) (init + replay)",
    "asyncstream-baseline": "baseline: AsyncStream(.unbounded) + producer Task, same interpolation",
]

/// Runs one case `runs` times in this process and prints one tab-separated result line:
/// case, fixes, median ms, min ms, max ms, RSS before the runs MiB (track built), RSS once the
/// replay is set up MiB, max RSS sampled every 21,600 fixes during the replays MiB, peak RSS MiB.
func runVirtualCase(_ name: String) async throws {
    let runs = Int(option("--runs", default: 9))
    let path = walkTrack(points: 86_400)
    let rssBefore = memory().current
    var rssReady = rssBefore
    var rssDuring = rssBefore
    let clock = ContinuousClock()
    var times: [Double] = []
    var count = 0
    for _ in 0..<runs {
        let start = clock.now
        switch name {
        case "init":
            let replay = try GPXReplay(
                path: path, configuration: .init(pacing: .virtual, rate: 1), clock: VirtualClock(autoAdvance: true),
                now: { Date(timeIntervalSince1970: 0) })
            count = replay.analysis.pointCount
            rssReady = max(rssReady, memory().current)
        case "virtual":
            let replay = try GPXReplay(
                path: path, configuration: .init(pacing: .virtual, rate: 1), clock: VirtualClock(autoAdvance: true),
                now: { Date(timeIntervalSince1970: 0) })
            rssReady = max(rssReady, memory().current)
            count = 0
            for try await _ in replay {
                count += 1
                if count % 21_600 == 0 { rssDuring = max(rssDuring, memory().current) }
            }
        case "timed-virtualclock":
            let virtualClock = VirtualClock(autoAdvance: true)
            let replay = try GPXReplay(
                path: path, configuration: .init(pacing: .realTime, rate: 1), clock: virtualClock,
                now: { Date(timeIntervalSince1970: 0) })
            rssReady = max(rssReady, memory().current)
            count = 0
            for try await _ in replay {
                count += 1
                if count % 21_600 == 0 { rssDuring = max(rssDuring, memory().current) }
            }
            precondition(virtualClock.now.offset == .seconds(86_399))
        case "asyncstream-baseline":
            count = await streamBaseline(path)
            rssDuring = max(rssDuring, memory().current)
        default:
            fatalError("unknown case \(name)")
        }
        times.append(milliseconds(start.duration(to: clock.now)))
    }
    let values = [Double(count), median(times), times.min()!, times.max()!, rssBefore, rssReady, rssDuring, memory().peak]
    print(([name] + values.map { format($0) }).joined(separator: "\t"))
}

func benchmarkVirtual() async throws {
    let runs = Int(option("--runs", default: 9))
    print("## 24 h, 1 Hz track (86,400 points), 1 Hz resampling, virtual time; \(runs) runs per case, median\n")
    var rows: [[String]] = []
    for name in virtualCases {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["virtual-case", name, "--runs", String(runs)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = output.split(separator: "\n").last else {
            fatalError("case \(name) failed: \(output)")
        }
        rows.append(line.split(separator: "\t").map(String.init))
    }
    let reference = Double(rows[1][2])!
    print("| case | fixes | median ms | min ms | max ms | ratio to .virtual | RSS track MiB | RSS set up MiB | max RSS during MiB | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows {
        let ratio = Double(row[2])! / reference
        print("| \(virtualCaseNames[row[0]]!) | \(row[1].split(separator: ".")[0]) | \(row[2]) | \(row[3]) | \(row[4]) | \(format(ratio))× | \(row[5]) | \(row[6]) | \(row[7]) | \(row[8]) |")
    }
}

// MARK: - 2. Real-time accuracy on ContinuousClock

func benchmarkRealtime() async throws {
    let minutes = option("--minutes", default: 10)
    let factor = option("--factor", default: 10)
    let points = Int(minutes * 60) + 1
    let path = walkTrack(points: points)
    let wall = minutes * 60 / factor
    print("## Real-time replay: \(format(minutes, 0)) min track at 1 Hz (\(points) fixes), speed factor \(format(factor, 1)) (~\(format(wall, 0)) s wall), ContinuousClock\n")
    let clock = ContinuousClock()

    // GPXReplay: absolute deadlines.
    let replay = try GPXReplay(
        path: path, configuration: .init(pacing: .timed(speedFactor: factor)), clock: clock, now: { Date() })
    var lateness: [Double] = []
    let t0 = clock.now
    var k = 0
    for try await _ in replay {
        let due = t0.advanced(by: .seconds(Double(k) / factor))
        lateness.append(milliseconds(due.duration(to: clock.now)))
        k += 1
    }
    // Baseline: sleep for the interval after each fix (relative sleeps), the usual first attempt.
    var relativeLateness: [Double] = []
    let points0 = path.segments[0]
    let r0 = clock.now
    for (i, point) in points0.enumerated() {
        if i > 0 {
            let interval = point.time!.timeIntervalSince(points0[i - 1].time!)
            try await clock.sleep(for: .seconds(interval / factor))
        }
        let due = r0.advanced(by: .seconds(Double(i) / factor))
        relativeLateness.append(milliseconds(due.duration(to: clock.now)))
    }
    print("| scheduling | fixes | median lateness ms | p99 ms | max ms | last fix (total drift) ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for (name, values) in [("GPXReplay (absolute deadlines)", lateness), ("baseline: relative sleep(for:) per fix", relativeLateness)] {
        let sorted = values.sorted()
        let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        print("| \(name) | \(values.count) | \(format(median(values), 3)) | \(format(p99, 3)) | \(format(sorted.last!, 3)) | \(format(values.last!, 3)) |")
    }
}

switch arguments.first {
case "virtual": try await benchmarkVirtual()
case "virtual-case": try await runVirtualCase(arguments[1])
case "realtime": try await benchmarkRealtime()
default:
    try await benchmarkVirtual()
    print()
    try await benchmarkRealtime()
}
