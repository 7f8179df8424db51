import ArgumentParser
import Foundation
import LocationCore
import LocationGPSD

/// `locsim gpsd`: prints live fixes from gpsd (a USB GPS dongle) until interrupted.
struct GPSD: AsyncParsableCommand, Interruption.Command {
    static let configuration = CommandConfiguration(
        commandName: "gpsd",
        abstract: "Print live fixes from gpsd (a USB GPS dongle) until interrupted.",
        discussion: """
            Connects to gpsd, subscribes to JSON reports and prints one line per report that says \
            something new. Reports without a position (no fix yet, or no time) print as status \
            lines, never as fixes, at most one a second (a receiver without a fix may report \
            several a second). Ctrl-C stops cleanly with exit status 0.

            jsonl lines (docs/reference/jsonl.md): {"type":"fix","t":"2025-06-15T15:06:40.000Z","lat":..,"lon":..,\
            "accuracy":..,"mode":"3d"} (accuracy null when gpsd has no estimate; alt, vaccuracy, speed and \
            course when known), as replay and simulate write fixes; {"type":"status",...} for reports \
            without a position; {"type":"event","event":...} for connections, gaps and devices.

            --record FILE.gpx or FILE.nmea also writes the fixes received to a file, one per epoch \
            (gpsd's last report for each time), each written at once: Ctrl-C loses nothing. \
            'locsim replay FILE' replays the recording later.
            """
    )

    @Option(help: "gpsd's host: a name or an address (IPv6 as ::1 or [::1]).", transform: HostArgument.parse)
    var host: String = "127.0.0.1"

    @Option(parsing: .unconditional, help: "gpsd's TCP port.")
    var port: Int = 2947

    @Option(help: "Watch only this device (as gpsd names it, e.g. /dev/ttyACM0).")
    var device: String?

    @Option(help: "Output format: text or jsonl.")
    var format: TimelineFormat = .text

    @Flag(help: "Wait for gpsd if it is not up yet, and reconnect after it goes away.")
    var reconnect = false

    @Flag(
        help: """
            Print every report, even one whose line repeats the one before, and every status report \
            (live data keeps the newest: a report that comes while the one before is still being printed replaces it, \
            but for --record, which keeps every report).
            """)
    var allReports = false

    @Option(help: ArgumentHelp("Also record the fixes received to a .gpx or .nmea file (one per epoch, written as they come).", valueName: "file"))
    var record: String?

    func validate() throws {
        guard !host.isEmpty else { throw ValidationError("--host must not be empty") }
        try checkOption(port, in: OptionRange.port, flag: "--port")
        if let device, device.isEmpty { throw ValidationError("--device must not be empty") }
        if let record { try FixFileFormat.checkOutputName(record, flag: "--record") }
    }

    func run() async throws {
        if let record { try checkOutputPath(record, flag: "--record") }
        // Live lines want the newest report while the terminal is behind; a recording wants
        // every epoch, so with --record the reports wait (and lines may come late, never skipped).
        let faults: GPSDProvider<ContinuousClock>.Configuration = reconnect ? .resilient : .failFast
        let provider = try GPSDProvider(
            host: host, port: port, device: device,
            configuration: record == nil ? faults : faults.recording, clock: ContinuousClock(), now: { Date() })
        let (format, endpoint) = (format, HostPort(host: host, port: port).description)
        let recording = try record.map { try FixRecording(path: $0) }
        let allReports = allReports
        // gpsd sends one TPV per NMEA sentence; print a report only when its line says something
        // new (two reports that differ only in what the format does not show, such as no-fix
        // reports, are one line). The provider hands over the connection's events as they happen
        // and marks each gap (a lost connection, a removed device) with one no-fix report, so the
        // recording ends its track segment there; the recording sees every report (it keeps each
        // epoch's last).
        let news = Locked(GPSDNews())
        @Sendable func say(_ event: GPSDEvent) {
            let hasConnected = news.withLock { news in
                if case .connected = event { news.hasConnected = true }
                return news.hasConnected
            }
            let line = GPSDRecord(event: event, endpoint: endpoint, hasConnected: hasConnected).line(format)
            guard allReports || news.withLock({ $0.admits(event, line: line) }) else { return }
            Terminal.out(line)
        }
        let gpsd = provider.reportingEvents { event in say(event) }
        let interrupted: Bool
        do {
            interrupted = try await runUntilInterrupted {
                for try await fix in gpsd {
                    try recording?.record(fix)
                    say(.fix(fix))
                }
            } != nil
        } catch {
            // Says what the recording holds, or that an existing file was left as it was.
            try recording?.finishSaying(beforeError: true)
            throw error
        }
        try recording?.finishSaying()
        if !interrupted {
            // The sequence only ends by itself when cancelled; reaching here means gpsd ended it.
            throw ExitCode(1)
        }
    }
}

/// Which of `locsim gpsd`'s lines say something new: not a line that repeats the one before,
/// and not a second status line less than a second after the one printed (a receiver without a
/// fix reports its status with each sentence: a Quectel EG25-G four times a second, each stamped
/// with when it arrived, so no two lines are equal).
struct GPSDNews {
    /// Whether a session has been up: until then a failed attempt is no disconnection.
    var hasConnected = false
    private var previous: String?
    /// The time of the status line printed last, while statuses follow each other.
    private var statusTime: Date?

    /// Whether `line`, written for `event`, is printed; notes it if so.
    mutating func admits(_ event: GPSDEvent, line: String) -> Bool {
        if case .fix(let fix) = event, !fix.hasPosition {
            // A second after the last one printed, not a new clock second: 13.843 and 14.004
            // would be two lines 161 ms apart.
            if let statusTime, fix.time.timeIntervalSince(statusTime) < 1 { return false }
            statusTime = fix.time
        } else {
            statusTime = nil
        }
        guard line != previous else { return false }
        previous = line
        return true
    }
}
