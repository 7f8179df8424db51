#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocSimTestHelpers
import LocationCore
@testable import LocationGPSD
import LocationTestSupport
import Testing

/// The provider against a peer that is not gpsd: a loopback socket that writes the lines it is
/// given, so that reports no real gpsd sends can reach the provider's own line handling.
@Suite(.timeLimit(.minutes(1))) struct GPSDPeerTests {
    /// Found by fuzzing (docs/development/fuzzing.md): gpsd 3.22's `gps_unpack` never returns on this line.
    static let hangLine = #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"x"Z}]}"#

    static func tpv(latitude: Double) -> String {
        #"{"class":"TPV","device":"x","mode":2,"time":"2025-06-15T15:06:40.000Z","lat":"#
            + "\(latitude)" + #","lon":139.76}"#
    }

    /// Also found by fuzzing: valid JSON whose first `"class"` is a nested one also hangs it.
    static let nestedClassFirstLine =
        #"{"bpsclass":"DEVICES","devices":[{"class":"DEVICE","path":"tcp://127.0.0.1:4001","activated":"2026-11-21T06:19:17.170Z"}]}"#

    @Test("The lines that hang libgps are refused before libgps sees them")
    func hangLinesAreChecked() throws {
        #expect(JSONSyntax.problem(inObject: Self.hangLine) != nil)
        let messages = try GPSDConnection.decode([Self.hangLine], receivedAt: Date(timeIntervalSince1970: 0))
        #expect(messages == [.other("DEVICES")])

        let report = JSONSyntax.check(Self.nestedClassFirstLine)
        #expect(report.problem == nil && report.topLevelClass == nil && !report.classComesFirst)
        let error = #expect(throws: GPSDError.self) {
            _ = try GPSDConnection.decode([Self.nestedClassFirstLine], receivedAt: Date(timeIntervalSince1970: 0))
        }
        #expect(error?.code == .malformedReport)
        #expect(error?.description.contains("no \"class\" member at the top level") == true)
    }

    /// Found by fuzzing: any bad value inside DEVICES's array of objects (a key of 31 bytes, a
    /// driver name of 100, a string where a number goes) hangs gps_unpack too, so only the
    /// flat classes the provider maps, and a SKY shaped as gpsd writes it, are decoded at all.
    @Test("Arrays of objects never reach libgps: DEVICES is only named, a SKY unlike gpsd's too", arguments: [
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"x","aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":"2026"}]}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"x","driver":""# + String(repeating: "d", count: 100)
            + #""}]}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"x","flags":"1"}]}"#,
        #"{"class":"SKY","satellites":[{"PRN":"not a number"}]}"#,
    ])
    func arraysAreOnlyNamed(line: String) throws {
        let messages = try GPSDConnection.decode([line], receivedAt: Date(timeIntervalSince1970: 0))
        if line.contains("SKY") {
            #expect(messages.count == 1 && { if case .skyUnreadable = messages[0] { true } else { false } }(), "\(messages)")
        } else {
            #expect(messages == [.other("DEVICES")])
        }
    }

    /// Found by fuzzing: members before the class hang gps_unpack when long enough; so does a
    /// second "class" member naming another class (gps_unpack loops in strstr for good).
    @Test("A mapped class must have \"class\" first, once, and member names libgps can hold", arguments: [
        #"{"class":"TPV","class":"DEVICE"}"#,
        #"{"class":"TPV","device":"x","class":"VERSION"}"#,
        #"{"class":"VERSION","release":"3.22","class":"TPV","mode":1}"#,
        #"{""# + String(repeating: "a", count: 31) + #"":"X","class":"VERSION","release":"3.22"}"#,
        #"{"x":""# + String(repeating: "a", count: 600) + #"","class":"VERSION","release":"3.22"}"#,
        #"{"class":"TPV","mode":1,""# + String(repeating: "a", count: 31) + #"":1}"#,
    ])
    func classFirstAndShortNames(line: String) {
        let error = #expect(throws: GPSDError.self) {
            _ = try GPSDConnection.decode([line], receivedAt: Date(timeIntervalSince1970: 0))
        }
        #expect(error?.code == .malformedReport)
    }

    @Test("A mapped class with a nested array or object is refused, not decoded")
    func nestedInMappedClass() {
        let error = #expect(throws: GPSDError.self) {
            _ = try GPSDConnection.decode(
                [#"{"class":"DEVICE","path":"x","subtypes":[{"class":"X","flags":"1"}]}"#],
                receivedAt: Date(timeIntervalSince1970: 0))
        }
        #expect(error?.code == .malformedReport)
    }

    @Test("libgps sees the report compacted: whitespace outside strings goes, inside strings stays")
    func compacted() {
        let report = JSONSyntax.check("{ \"class\" : \"TPV\" ,\t\"device\": \"a b\" }\r")
        #expect(String(decoding: report.compact, as: UTF8.self) == #"{"class":"TPV","device":"a b"}"#)
        #expect(report.topLevelClass == "TPV" && report.classComesFirst)
    }

    @Test("A live session survives a report that would hang libgps, and goes on to the next fix")
    func liveSessionSurvivesHangLine() async throws {
        let peer = try LinePeer(lines: [
            #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
            Self.hangLine,
            Self.tpv(latitude: 35.5),
        ])
        defer { peer.stop() }
        let provider = try GPSDProvider(
            host: "127.0.0.1", port: peer.port, clock: VirtualClock(), now: { Date(timeIntervalSince1970: 0) })
        let recorder = EventRecorder(provider.events)
        defer { recorder.cancelNow() }
        try await recorder.wait(for: "the fix after the bad line") { events in
            events.contains { if case .fix(let fix) = $0 { fix.coordinate?.latitude == 35.5 } else { false } }
        }
    }

    @Test("Reports split across reads, with CR LF or LF, come out whole and in order")
    func splitReports() async throws {
        let lines = (0..<40).map { Self.tpv(latitude: 35 + Double($0) / 100) }
        let peer = try LinePeer(lines: lines, lineEnd: "\r\n", chunkSize: 7)
        defer { peer.stop() }
        let provider = try GPSDProvider(
            host: "127.0.0.1", port: peer.port, clock: VirtualClock(), now: { Date(timeIntervalSince1970: 0) })
        let recorder = EventRecorder(provider.events)
        defer { recorder.cancelNow() }
        try await recorder.wait(for: "40 fixes") { events in
            events.contains { if case .fix(let fix) = $0 { fix.coordinate?.latitude == 35.39 } else { false } }
        }
        let latitudes = recorder.positions.compactMap { $0.coordinate?.latitude }
        // The provider keeps only the newest of fixes not yet taken, so some may be skipped,
        // but never reordered.
        #expect(latitudes == latitudes.sorted())
        #expect(latitudes.last == 35.39)
    }

    @Test("A recorder's provider (Configuration.recording) hands over every fix, in order, however far behind it reads")
    func recordingKeepsEveryFix() async throws {
        let lines = (0..<400).map { Self.tpv(latitude: 35 + Double($0) / 1_000) }
        let peer = try LinePeer(lines: lines)
        defer { peer.stop() }
        let provider = try GPSDProvider(
            host: "127.0.0.1", port: peer.port, configuration: GPSDProvider<VirtualClock>.Configuration().recording,
            clock: VirtualClock(), now: { Date(timeIntervalSince1970: 0) })
        let recorder = EventRecorder(provider.events)
        defer { recorder.cancelNow() }
        try await recorder.wait(for: "the last fix") { events in
            events.contains { if case .fix(let fix) = $0 { fix.coordinate?.latitude == 35.399 } else { false } }
        }
        let latitudes = recorder.positions.compactMap { $0.coordinate?.latitude }
        #expect(latitudes == (0..<400).map { 35 + Double($0) / 1_000 })
    }

    @Test("A report longer than the limit without a line end ends the session with a malformed report naming host:port")
    func overlongReport() async throws {
        let peer = try LinePeer(
            lines: [String(repeating: "x", count: GPSDConnection.maximumReportLength + 10)], lineEnd: "")
        defer { peer.stop() }
        let provider = try GPSDProvider(
            host: "127.0.0.1", port: peer.port, clock: VirtualClock(), now: { Date(timeIntervalSince1970: 0) })
        let recorder = EventRecorder(provider.events)
        defer { recorder.cancelNow() }
        // Without reconnection (the default) the provider ends with the error.
        guard case .failure(let error) = try await recorder.waitForEnd() else {
            Issue.record("the stream ended without an error")
            return
        }
        let gpsdError = try #require(error as? GPSDError)
        #expect(gpsdError.code == .malformedReport)
        #expect(gpsdError.description.contains("127.0.0.1:\(peer.port)"))
        #expect(gpsdError.description.contains("\(GPSDConnection.maximumReportLength) bytes"))
    }
}

/// A one-connection TCP peer on 127.0.0.1 that writes `lines`, `chunkSize` bytes at a time, and
/// then holds the connection open until stopped.
private final class LinePeer: Sendable {
    let port: Int
    private let listener: Int32
    private let state = PeerState()

    init(lines: [String], lineEnd: String = "\n", chunkSize: Int = 1 << 16) throws {
        let (listener, port) = try LoopbackSocket.makeListener()
        self.listener = listener
        self.port = port
        let bytes = Array(lines.map { $0 + lineEnd }.joined().utf8)
        let state = self.state
        let thread = Thread {
            let fd = LoopbackSocket.accept(listener)
            guard fd >= 0 else { return }
            state.client.withLock { $0 = fd }
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + chunkSize, bytes.count)
                guard LoopbackSocket.writeAll(fd, Array(bytes[offset..<end])) else { return }
                offset = end
            }
        }
        thread.start()
    }

    /// Closes both sockets (idempotent); a pending `accept` returns.
    func stop() {
        let already = state.finished.withLock { done in
            defer { done = true }
            return done
        }
        guard !already else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        state.client.withLock { fd in
            if fd >= 0 {
                shutdown(fd, Int32(SHUT_RDWR))
                close(fd)
            }
        }
    }
}

private final class PeerState: Sendable {
    let finished = Locked(false)
    let client = Locked<Int32>(-1)
}
