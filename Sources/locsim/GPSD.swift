import ArgumentParser
import Dispatch
import LocationCore
import LocationGPSD

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `locsim gpsd`: prints live fixes from gpsd (a USB GPS dongle) until interrupted.
struct GPSD: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpsd",
        abstract: "Print live fixes from gpsd (a USB GPS dongle) until interrupted.",
        discussion: """
            Connects to gpsd, subscribes to JSON reports and prints one line per report. Reports \
            without a position (no fix yet, or no time) print as status lines, never as fixes. \
            Ctrl-C stops cleanly with exit status 0.

            jsonl lines (docs/jsonl.md): {"type":"fix","t":"2025-06-15T15:06:40.000Z","lat":..,"lon":..,\
            "accuracy":..,"mode":"3d"} (accuracy null when gpsd has no estimate; alt, vaccuracy, speed and \
            course when known), as replay and simulate write fixes; {"type":"status",...} for reports \
            without a position; {"type":"event","event":...} for connections, gaps and devices.
            """
    )

    @Option(help: "gpsd's host.")
    var host: String = "127.0.0.1"

    @Option(help: "gpsd's TCP port.")
    var port: Int = 2947

    @Option(help: "Watch only this device (as gpsd names it, e.g. /dev/ttyACM0).")
    var device: String?

    @Option(help: "Output format: text or jsonl.")
    var format: GPSDOutputFormat = .text

    @Flag(help: "Wait for gpsd if it is not up yet, and reconnect after it goes away.")
    var reconnect = false

    @Flag(help: "Print repeated identical reports too (gpsd sends one per NMEA sentence).")
    var allReports = false

    func validate() throws {
        guard !host.isEmpty else { throw ValidationError("--host must not be empty") }
        try checkOption(port, in: OptionRange.port, flag: "--port")
        if let device, device.isEmpty { throw ValidationError("--device must not be empty") }
    }

    func run() async throws {
        let provider = try GPSDProvider(
            host: host, port: port, device: device,
            configuration: reconnect ? .resilient : .failFast)
        let printer = GPSDPrinter(format: format, endpoint: "\(host):\(port)")
        let interrupted = try await runUntilInterrupted {
            // gpsd sends one TPV per NMEA sentence; print a report only when it says something new.
            var previous: GPSDEvent?
            for try await event in provider.events where allReports || event != previous {
                printer.print(event)
                previous = event
            }
        }
        if !interrupted {
            // The sequence only ends by itself when cancelled; reaching here means gpsd ended it.
            throw ExitCode(1)
        }
    }
}

/// `--format text|jsonl`.
enum GPSDOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl
}
