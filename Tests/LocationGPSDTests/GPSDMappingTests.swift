import Foundation
import LocSimTestHelpers
import LocationCore
@testable import LocationGPSD
import Testing

/// TPV → Fix mapping, decoded through libgps's own `gps_unpack` from a recorded gpsd session,
/// with no daemon running. The expected values are read from the same JSON lines with
/// `JSONSerialization` and the documented rules, never typed in.
@Suite(.ownThread) struct GPSDMappingTests {
    static let fixture = Bundle.module.url(forResource: "Fixtures/gpsd/session-3.22", withExtension: "jsonl")!
    static let receivedAt = Date(timeIntervalSince1970: 1_000)

    static func lines() throws -> [String] {
        try String(contentsOf: fixture, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
    }

    @Test("Every TPV in a recorded session maps by the documented rules")
    func mapsRecordedSession() throws {
        let lines = try Self.lines()
        let messages = try GPSDConnection.decode(lines, receivedAt: Self.receivedAt)
        #expect(messages.count == lines.count)
        var modes: Set<FixMode> = []
        var timeless = 0
        for (line, message) in zip(lines, messages) {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard json["class"] as? String == "TPV" else { continue }
            guard case .fix(let fix) = message else {
                Issue.record("TPV decoded as \(message)")
                continue
            }
            let expected = try ExpectedFix(json: json, receivedAt: Self.receivedAt)
            #expect(fix == expected.fix, "\(line)")
            modes.insert(fix.mode)
            if json["time"] == nil { timeless += 1 }
        }
        // The recording covers what the rules distinguish.
        #expect(modes == [.noFix, .twoDimensional, .threeDimensional])
        #expect(timeless > 0, "the session has a TPV without time")
    }

    @Test("Reports without a position are statuses stamped with their time, or with the reception time")
    func statusReports() throws {
        let lines = try Self.lines()
        let messages = try GPSDConnection.decode(lines, receivedAt: Self.receivedAt)
        for (line, message) in zip(lines, messages) where line.contains(#""class":"TPV""#) {
            guard case .fix(let fix) = message, !fix.hasPosition else { continue }
            #expect(fix.coordinate == nil && fix.mode == .noFix)
            if line.contains(#""time":""#) {
                #expect(fix.time != Self.receivedAt)
            } else {
                #expect(fix.time == Self.receivedAt)
            }
        }
    }

    /// Found by fuzzing (docs/development/fuzzing.md): a space after the colon hid the class, so a valid
    /// report from a tool that pretty-prints its JSON was "no class".
    @Test("The class is found with JSON whitespace around the colon", arguments: [
        #"{"class": "TPV","mode":1}"#, #"{"class" :"TPV","mode":1}"#, "{\"class\"\t:\r\n \"TPV\",\"mode\":1}",
    ])
    func classWithWhitespace(line: String) throws {
        #expect(GPSDConnection.messageClass(of: line) == "TPV")
        let messages = try GPSDConnection.decode([line], receivedAt: Self.receivedAt)
        guard case .fix(let fix) = try #require(messages.first) else {
            Issue.record("decoded as \(messages)")
            return
        }
        #expect(fix.mode == .noFix)
    }

    @Test("A \"class\" that is a value, not a key, is not taken for one")
    func classAsValue() {
        #expect(GPSDConnection.messageClass(of: #"{"device":"class","class":"SKY"}"#) == "SKY")
        #expect(GPSDConnection.messageClass(of: #"{"note":"class"}"#) == nil)
    }

    @Test("Control messages: version, watch, device activation and removal")
    func controlMessages() throws {
        let lines = try Self.lines()
        let messages = try GPSDConnection.decode(lines, receivedAt: Self.receivedAt)
        let release = try #require(lines.first { $0.hasPrefix(#"{"class":"VERSION""#) })
        let releaseName = try #require(
            (try JSONSerialization.jsonObject(with: Data(release.utf8)) as? [String: Any])?["release"] as? String)
        #expect(messages.contains(.version(release: releaseName)))
        #expect(messages.contains(.watch))
        let devices = messages.compactMap { if case .device(let path, let active) = $0 { (path, active) } else { nil } }
        #expect(devices.contains { $0.1 })
        #expect(devices.last.map { !$0.1 } == true, "the recording ends with the feed closed")
    }

    @Test("A fix that is 3D in mode but has no altitude, and horizontal accuracy from epx/epy")
    func fallbacks() throws {
        let base = #"{"class":"TPV","mode":3,"time":"2025-06-15T15:06:40.250Z","lat":51.5,"lon":-0.12"#
        let messages = try GPSDConnection.decode(
            [base + #","epx":3.0,"epy":4.0,"track":-90.0}"#, base + #","altHAE":40.5,"eph":7.0,"epv":9.0}"#],
            receivedAt: Self.receivedAt)
        guard case .fix(let first) = messages[0], case .fix(let second) = messages[1] else {
            Issue.record("not fixes: \(messages)")
            return
        }
        #expect(first.altitude == nil && first.mode == .threeDimensional)
        #expect(first.horizontalAccuracy == (3.0 * 3.0 + 4.0 * 4.0).squareRoot())
        #expect(first.course == -90.0 + 360)
        #expect(first.time == UTCTimestamp.parse("2025-06-15T15:06:40.250Z"))
        #expect(second.altitude == 40.5, "altHAE when altMSL is absent")
        #expect(second.horizontalAccuracy == 7.0 && second.verticalAccuracy == 9.0)
    }

    @Test("Out-of-range coordinates never become a position")
    func outOfRange() throws {
        let messages = try GPSDConnection.decode(
            [#"{"class":"TPV","mode":2,"time":"2025-06-15T15:06:40Z","lat":91.0,"lon":0.0}"#],
            receivedAt: Self.receivedAt)
        guard case .fix(let fix) = messages[0] else { Issue.record("\(messages)"); return }
        #expect(!fix.hasPosition && fix.mode == .noFix)
        #expect(fix.time == UTCTimestamp.parse("2025-06-15T15:06:40Z"))
    }

    @Test("A time libgps cannot read (it gives 1899-12-31) is no time: a status at the reception time, never a fix; a negative eph or epv is no accuracy")
    func unreadableTimeAndNegativeErrors() throws {
        let lines = [
            #"{"class":"TPV","mode":2,"time":"garbage","lat":35.005,"lon":139.0}"#,
            #"{"class":"TPV","mode":2,"time":"","lat":35.006,"lon":139.0}"#,
            #"{"class":"TPV","mode":3,"time":"2025-06-15T15:06:40Z","lat":35.007,"lon":139.0,"altHAE":40,"eph":-5,"epv":-3}"#,
        ]
        let messages = try GPSDConnection.decode(lines, receivedAt: Self.receivedAt)
        for message in messages.prefix(2) {
            guard case .fix(let fix) = message else { Issue.record("\(message)"); continue }
            #expect(!fix.hasPosition && fix.mode == .noFix && fix.time == Self.receivedAt, "\(fix)")
        }
        guard case .fix(let fix) = messages[2] else { Issue.record("\(messages[2])"); return }
        #expect(fix.hasPosition && fix.time == UTCTimestamp.parse("2025-06-15T15:06:40Z"))
        #expect(fix.horizontalAccuracy == nil && fix.verticalAccuracy == nil, "\(fix)")
    }

    @Test("Malformed reports are refused with the line named", arguments: [
        #"{"class":"TPV","mode":"#, "garbage", "{}", #"{"class":"TPV"}}"#,
    ])
    func malformed(line: String) {
        let error = #expect(throws: GPSDError.self) {
            _ = try GPSDConnection.decode([#"{"class":"WATCH","enable":true}"#, line], receivedAt: Self.receivedAt)
        }
        #expect(error?.code == .malformedReport)
        #expect(error?.detail.hasPrefix("line 2:") == true)
    }

    @Test("A damaged report of a class that is not mapped is named, not fatal")
    func damagedUnmappedClass() throws {
        let messages = try GPSDConnection.decode([#"{"class":"GST","device":"x","rms":"#], receivedAt: Self.receivedAt)
        #expect(messages == [.other("GST")])
    }

    static let sky =
        #"{"class":"SKY","device":"/dev/ttyACM0","xdop":0.61,"ydop":0.83,"vdop":1.52,"tdop":0.9,"hdop":1.03,"gdop":2.07,"#
        + #""pdop":1.84,"nSat":3,"uSat":2,"satellites":[{"PRN":7,"el":61.0,"az":212.0,"ss":44.0,"used":true,"gnssid":0,"#
        + #""svid":7},{"PRN":72,"el":12.0,"az":31.0,"used":true,"gnssid":6,"svid":8,"sigid":1,"freqid":3,"health":1},"#
        + #"{"PRN":131,"az":150.0,"ss":0.0,"used":false,"gnssid":1,"svid":131}]}"#
    static func tpv(device: String) -> String {
        #"{"class":"TPV","device":""# + device + #"","mode":2,"time":"2026-11-30T10:00:00.000Z","lat":35.68,"lon":139.76}"#
    }

    /// The sky a ``Fix`` should carry for ``sky``, read from the same line with `JSONSerialization`.
    static func expectedSky() throws -> ReceiverReport.Sky {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(sky.utf8)) as? [String: Any])
        var dilutions: [ReceiverReport.Sky.Dilution: Double] = [:]
        for dilution in ReceiverReport.Sky.Dilution.allCases { dilutions[dilution] = json[dilution.rawValue] as? Double }
        let satellites = try #require(json["satellites"] as? [[String: Any]]).map { member in
            Satellite(
                id: member["PRN"] as? Int ?? 0, elevation: member["el"] as? Double, azimuth: member["az"] as? Double,
                signal: member["ss"] as? Double, used: member["used"] as? Bool ?? false,
                signalIdentity: Satellite.SignalIdentity(
                    gnssID: member["gnssid"] as? Int ?? 0, svID: member["svid"] as? Int ?? 0,
                    signalID: member["sigid"] as? Int ?? 0, frequencyID: member["freqid"] as? Int,
                    health: member["health"] as? Int ?? 0))
        }
        return ReceiverReport.Sky(dilutions: dilutions, satellites: satellites)
    }

    @Test("A receiver's SKY goes with its device's next fixes, decoded by libgps member for member")
    func skyGoesWithFixes() throws {
        let messages = try GPSDConnection.decode(
            [Self.sky, Self.tpv(device: "/dev/ttyACM0"), Self.tpv(device: "/dev/ttyACM0"), Self.tpv(device: "/dev/other")],
            receivedAt: Self.receivedAt)
        let fixes = messages.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
        try #require(fixes.count == 3)
        let expected = try Self.expectedSky()
        #expect(expected.satellites.count == 3 && expected.dilutions.count == 7)
        #expect(fixes[0].receiver?.sky == expected)
        #expect(fixes[1].receiver?.sky == expected)
        // Another receiver's fix is not given this one's sky.
        #expect(fixes[2].receiver?.sky == nil)
    }

    @Test("A sky ends with its device's deactivation")
    func skyEndsWithDevice() throws {
        let gone = #"{"class":"DEVICE","path":"/dev/ttyACM0","activated":0}"#
        let messages = try GPSDConnection.decode(
            [Self.sky, gone, Self.tpv(device: "/dev/ttyACM0")], receivedAt: Self.receivedAt)
        guard case .fix(let fix) = messages.last else { throw HarnessError("no fix: \(messages)") }
        #expect(fix.receiver?.sky == nil)
    }

    /// gpsd 3.22's gps_unpack never returns on some bad values inside an array of objects (found
    /// by fuzzing), so a SKY shaped otherwise than gpsd writes it never reaches it; and a sky
    /// libgps cannot read must not end the session.
    @Test("A SKY shaped unlike gpsd's is reported, not decoded and not fatal, and the sky it replaces is dropped", arguments: [
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":[{"PRN":"not a number"}]}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":[{"PRN":7,"used":1}]}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":[{"PRN":7.5}]}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":[{"PRN":7,"prRes":2.5}]}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":[{"PRN":7,"el":[1]}]}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":[7]}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":{"PRN":7}}"#,
        #"{"class":"SKY","device":["/dev/ttyACM0"],"satellites":[]}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":["#
            + Array(repeating: #"{"PRN":7}"#, count: 1_000).joined(separator: ",") + "]}",
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":[{"PRN":9"#,
    ])
    func skyShapedUnlikeGPSD(line: String) throws {
        let messages = try GPSDConnection.decode([Self.sky, line, Self.tpv(device: "/dev/ttyACM0")], receivedAt: Self.receivedAt)
        #expect(messages.count == 3)
        guard case .skyUnreadable(let reason) = messages[1] else { throw HarnessError("not reported: \(messages[1])") }
        #expect(reason.contains("{\"class\":\"SKY\""), "the report is quoted: \(reason)")
        guard case .fix(let fix) = messages.last else { throw HarnessError("no fix: \(messages)") }
        #expect(fix.receiver?.sky == nil)
    }

    @Test("A run of unreadable SKYs is reported once; a SKY read again ends the run")
    func unreadableSkyRun() throws {
        let bad = #"{"class":"SKY","device":"/dev/ttyACM0","satellites":[{"PRN":7,"prRes":2.5}]}"#
        let messages = try GPSDConnection.decode([bad, bad, Self.sky, bad], receivedAt: Self.receivedAt)
        let reported = messages.map { if case .skyUnreadable = $0 { true } else { false } }
        #expect(reported == [true, false, false, true], "\(messages)")
    }

    @Test("?WATCH names a device path as a JSON string, escaped")
    func jsonEscaping() throws {
        let path = "/dev/odd \"name\"\\with\ttab"
        let command = GPSDConnection.watchCommand(device: path)
        #expect(command.hasPrefix("?WATCH={") && command.hasSuffix("};\n"))
        let object = try #require(command.dropFirst("?WATCH=".count).dropLast(2).data(using: .utf8))
        let decoded = try #require(try JSONSerialization.jsonObject(with: object) as? [String: Any])
        #expect(decoded["device"] as? String == path)
        #expect(decoded["enable"] as? Bool == true && decoded["json"] as? Bool == true)
        #expect(GPSDConnection.watchCommand(device: nil) == "?WATCH={\"enable\":true,\"json\":true};\n")
    }
}

/// The documented mapping applied to a TPV's JSON, independently of libgps.
struct ExpectedFix {
    let fix: Fix

    init(json: [String: Any], receivedAt: Date) throws {
        let mode = json["mode"] as? Int ?? 0
        let time = try (json["time"] as? String).map { try #require(UTCTimestamp.parse($0)) }
        guard mode >= 2, let time, let lat = json["lat"] as? Double, let lon = json["lon"] as? Double else {
            fix = .noFix(time: time ?? receivedAt, source: .gpsd)
            return
        }
        let is3D = mode == 3
        let eph = json["eph"] as? Double
        let epx = json["epx"] as? Double
        let epy = json["epy"] as? Double
        var fix = Fix(
            time: time,
            coordinate: try Coordinate(latitude: lat, longitude: lon),
            altitude: is3D ? (json["altMSL"] as? Double ?? json["altHAE"] as? Double) : nil,
            speed: json["speed"] as? Double,
            course: json["track"] as? Double,
            horizontalAccuracy: eph ?? epx.flatMap { x in epy.map { y in (x * x + y * y).squareRoot() } },
            verticalAccuracy: is3D ? json["epv"] as? Double : nil,
            mode: is3D ? .threeDimensional : .twoDimensional,
            source: .gpsd)
        // The geoid separation goes with a height above sea level, or with no height.
        if fix.altitude == nil || json["altMSL"] is Double { fix.geoidSeparation = json["geoidSep"] as? Double }
        // Every member the fix has no field for, by gpsd's name, as the receiver's report.
        var report = ReceiverReport()
        for member in ReceiverReport.Member.allCases { report[member] = json[member.rawValue] as? Double }
        fix.receiver = report.isEmpty ? nil : report
        self.fix = fix
    }
}
