import ArgumentParser
import GPXFormat
import LocationCore
import LocationSimulation
import NMEAFormat

import Foundation
#if Server
import LocationFeed
#endif

/// `locsim nmea`: NMEA 0183 tools.
struct NMEACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nmea",
        abstract: "NMEA 0183 tools.",
        subcommands: [NMEAServe.self]
    )
}

/// `locsim nmea serve`: a simulated receiver on a TCP port, for gpsd or any NMEA client.
struct NMEAServe: AsyncParsableCommand, Interruption.Command {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve paced NMEA (RMC, GGA, VTG, GSA) from a GPX track, an NMEA log or straight-line motion over TCP.",
        discussion: """
            Every connected client receives the same sentences as they are produced, like devices \
            sharing one receiver. The clock starts when the first client connects. A real gpsd takes \
            the motion as if it came from a receiver:

              locsim nmea serve --port 4001 walk.gpx --speed 10 &
              gpsd -N -n -S 2947 tcp://127.0.0.1:4001
              locsim gpsd

            Fix times are the wall-clock time when each fix is sent (a live receiver), unless \
            --original-times keeps the track's own (gpsd 3.22 moves dates before its release forward \
            by 1024 weeks). Exits 0 after the last fix, or on Ctrl-C.

            An NMEA log (.nmea or .log: gpspipe -r output, a receiver's log, a locsim recording) is \
            served at the pace of its own times, its fixes written anew. HDOP travels both ways: a \
            GPX point's <hdop> and a log's HDOP are written as they were (accuracy = 19 m × HDOP, \
            gpsd's model). Points whose time goes backwards are dropped (a replay never reorders) \
            and listed on standard error.
            """
    )

    @Argument(
        help: "A GPX file (its track, or route, or waypoints), an NMEA log (.nmea, .log), a GeoJSON route (.geojson) or KML lines (.kml), served in order by the replay rules of docs/guides/replay.md.")
    var track: String?

    @Option(coordinate: "Straight-line motion instead of a track: the start.")
    var from: CoordinateArgument?

    @Option(number: "Straight-line motion: direction in degrees from true north.")
    var bearing: Double = 0

    /// `--mps`, as `simulate` names a constant speed in metres per second.
    @Option(name: .customLong("mps"), number: ArgumentHelp("Straight-line motion: ground speed in metres per second (0: stand still).", valueName: "m/s"))
    var walkSpeed: Double = 1.4

    @Option(duration: "Straight-line motion: time between fixes (default 1s).")
    var interval: DurationArgument = .seconds(1)

    @Option(parsing: .unconditional, help: "Straight-line motion: number of fixes.")
    var count: Int = 600

    @Option(number: "Straight-line motion: altitude in metres above mean sea level (a 3D fix); omit for 2D.")
    var altitude: Double?

    @Option(number: "Playback speed factor, 0.1...1000 (10 = ten times faster than the track's own timing).")
    var speed: Double = 1

    @Option(help: "Address (IPv6 as ::1 or [::1]) or host name (localhost) to listen on.", transform: HostArgument.parse)
    var host: String = "127.0.0.1"

    @Option(parsing: .unconditional, help: "TCP port to listen on (0: any free port, printed when listening).")
    var port: Int

    @Option(parsing: .unconditional, help: "Satellites in use to report in GGA, 1...99 (gpsd takes a fix with none in use for no fix).")
    var satellites: Int = 8

    @Flag(help: "Keep the track's own fix times instead of the wall-clock time of sending.")
    var originalTimes = false

    func validate() throws {
        // It serves on the gpsd feed's listener (SwiftNIO).
        try BuildTraits.requireServer(for: "locsim nmea serve")
        guard (track == nil) != (from == nil) else {
            throw ValidationError("give either a walk file (GPX, NMEA, GeoJSON or KML) or --from LAT,LON (straight-line motion), not both or neither")
        }
        if let track {
            _ = try FixFileFormat.input(track, what: "the track")
            for (flag, given) in [
                ("--bearing", bearing != 0), ("--mps", walkSpeed != 1.4), ("--interval", interval.duration != .seconds(1)),
                ("--count", count != 600), ("--altitude", altitude != nil),
            ] where given {
                throw ValidationError("\(flag) is for straight-line motion (--from LAT,LON): \(track)'s own points set the way and the pace")
            }
        }
        guard !host.isEmpty else { throw ValidationError("--host must not be empty") }
        try checkOption(port, in: 0...65_535, flag: "--port")  // 0: any free port, printed when listening
        try validateSpeed(speed)
        if satellites == 0 {
            throw ValidationError("--satellites 0 would have gpsd report no fix at all (it takes a fix with no satellites in use for none); give 1...99")
        }
        try checkOption(satellites, in: 1...99, flag: "--satellites")
        if from != nil {
            // 0 stands still; otherwise the speed profile's own range.
            if walkSpeed != 0 { try checkOption(walkSpeed, in: OptionRange.metresPerSecond, flag: "--mps", unit: "m/s") }
            try checkOption(interval, in: OptionRange.interval, flag: "--interval")
            try checkOption(count, in: OptionRange.count, flag: "--count")
            try checkOption(bearing, in: OptionRange.bearing, flag: "--bearing", unit: "degrees")
            if let altitude { try checkOption(altitude, in: OptionRange.altitude, flag: "--altitude", unit: "metres") }
        }
    }

    func run() async throws {
        // The same providers replay and simulate use: timed pacing against absolute deadlines,
        // the documented rules for repeated and backwards times, times rebased to the wall clock
        // unless --original-times. Iteration (and so the clock) starts at the first client.
        if let from {
            let start = from.coordinate
            let length = walkSpeed * interval.seconds * Double(count - 1)
            let path: MotionPath =
                length > 0 ? .line(from: start, to: start.destination(distance: length, bearing: bearing)) : .stationary(at: start)
            let motion = try SyntheticMotion(
                path: path, speed: walkSpeed > 0 ? .constant(walkSpeed) : .walk, seed: 1,
                configuration: .init(
                    rate: 1 / interval.seconds, pacing: .timed(speedFactor: speed), duration: interval.seconds * Double(count - 1),
                    altitude: altitude, stampsSendingTime: !originalTimes))
            try await serve(motion, describing: "\(count) fixes of straight-line motion")
        } else if let track {
            let (replay, warnings) = try Self.trackReplay(track, speed: speed, originalTimes: originalTimes)
            if originalTimes { try Self.checkWritable(replay.analysis.recordedSpan, of: track) }
            for line in warnings { Terminal.err(line) }
            try await serve(replay, describing: "\(replay.analysis.pointCount) points of \(track)")
        }
    }

    /// A GPX file or an NMEA log replayed in real time at `speed`, with the lines to print about
    /// points dropped (shared with `serve --player NAME=walk.gpx`); a GPX point's `<hdop>` gives its
    /// accuracy too. `pacing` replaces the real-time pacing (`.virtual` for a player that paces itself).
    static func trackReplay(
        _ track: String, speed: Double, originalTimes: Bool, pacing: Pacing? = nil
    ) throws -> (GPXReplay<ContinuousClock>, [String]) {
        try NMEALog.replay(
            track, what: "the track", configuration: trackConfiguration(speed: speed, originalTimes: originalTimes, pacing: pacing))
    }

    /// Refuses, before serving, a track whose own times (`--original-times`) NMEA cannot carry:
    /// RMC's two-digit year says 1980…2079 only, and the first client would otherwise end the
    /// run at the first fix outside them.
    ///
    /// - Throws: `ValidationError` (status 2) naming the track, its years and the way out.
    static func checkWritable(_ span: ClosedRange<Date>?, of track: String) throws(ValidationError) {
        guard let span else { return }
        let years = NMEADate.year(of: span.lowerBound)...NMEADate.year(of: span.upperBound)
        let writable = NMEADate.writableYears
        guard writable.contains(years.lowerBound), writable.contains(years.upperBound) else {
            let spanText = years.count == 1 ? "in \(years.lowerBound)" : "from \(years.lowerBound) to \(years.upperBound)"
            throw ValidationError(
                "--original-times: \(track)'s times are \(spanText); NMEA carries years \(writable.lowerBound)…\(writable.upperBound) "
                    + "(RMC's two-digit year): leave out --original-times to send the time of sending")
        }
    }

    /// How a walk is replayed onto a feed (``trackReplay(_:speed:originalTimes:pacing:)``, and a
    /// scenario player's route): at `speed` in real time unless `pacing` says, rebased to now
    /// unless `originalTimes`, a point's HDOP giving its accuracy.
    static func trackConfiguration(speed: Double, originalTimes: Bool, pacing: Pacing? = nil) -> GPXReplay<ContinuousClock>.Configuration {
        .init(
            pacing: pacing ?? .timed(speedFactor: speed), timestamps: originalTimes ? .recorded : .rebased,
            horizontalAccuracyPerHDOP: NMEALog.horizontalAccuracyPerHDOP)
    }

    private func serve(_ provider: some LocationProvider, describing what: String) async throws {
        #if Server
        let server = NMEAFeedServer(host: host, port: port)
        let writer = NMEAWriter(options: .gpsd(satellitesInUse: satellites))
        let (host, speed) = (host, speed)
        let leftOut = Locked(0)
        do {
            _ = try await runUntilInterrupted {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await server.run { _, port in
                            // Said once Ctrl-C is handled, so whoever reads it may interrupt at once.
                            Terminal.err("locsim: serving \(what) as NMEA on \(HostPort(host: host, port: port)) at \(speed)× (waiting for a client)")
                        }
                    }
                    group.addTask {
                        try await server.waitForFirstClient()
                        var previous: Fix?
                        var lastStamp: Int64?
                        for try await fix in provider {
                            defer { previous = fix }
                            // A receiver tells one position per NMEA time (a centisecond): above
                            // 100 fixes a second (`--speed 1000`), a fix whose time would repeat
                            // the last one sent is left out, as the feed's players leave them out.
                            let stamp = NMEAWriter.stamp(secondsSince1970: fix.time.timeIntervalSince1970)
                            if let stamp, let lastStamp, stamp <= lastStamp {
                                leftOut.withLock { $0 += 1 }
                                continue
                            }
                            // A replayed receiver's own sky as GSA and GSV (an NMEA log's), else none.
                            let sky = fix.receiver?.sky.map { NMEAWriter.tellable($0.satellites) }
                            server.broadcast(try writer.string(for: Self.withMotion(fix, after: previous), sky: sky))
                            lastStamp = stamp
                        }
                    }
                    // The fixes ran out (the listener serves until cancelled, or fails to start).
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        } catch let error as ListenError {
            throw CommandFailure(
                error.description, hint: "choose another --port (0 picks a free one), or a --host of this machine such as 127.0.0.1")
        }
        let crowded = leftOut.withLock { $0 }
        Terminal.err(
            "locsim: served \(server.broadcasts) fixes to \(server.clientsServed) client(s)"
                + (crowded > 0 ? "; \(PeopleText.count(crowded, "fix", "fixes")) left out, each in a centisecond (an NMEA time) already told" : ""))
        #else
        throw BuildTraits.missing("Server", for: "locsim nmea serve")
        #endif
    }

    /// Fills a missing speed and course from the previous fix: receivers report both, and gpsd
    /// passes them on.
    static func withMotion(_ fix: Fix, after previous: Fix?) -> Fix {
        var fix = fix
        guard let previous, let from = previous.coordinate, let to = fix.coordinate else { return fix }
        let elapsed = fix.time.timeIntervalSince(previous.time)
        guard elapsed > 0 else { return fix }
        if fix.speed == nil { fix.speed = from.distance(to: to) / elapsed }
        if fix.course == nil, from != to { fix.course = from.bearing(to: to) }
        return fix
    }
}
