#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore
import NMEAFormat

/// The JSON reports of gpsd's protocol (gpsd_json(5), protocol 3.14, as gpsd 3.22 writes them):
/// members in gpsd's order, numbers with gpsd's decimals, no `null`s (an unknown value is left
/// out), each report one line ending in CR LF and far below the 4,096-byte limit
/// (`GPS_JSON_RESPONSE_MAX`). Only members libgps 3.22 knows are written: its parser refuses
/// a report with any other.
///
/// Package access: the wire format behind `GPSDFeedServer` and `PlayerHub`; clients read it with any gpsd client.
package enum GPSDReport {
    /// The protocol version spoken: 3.14, gpsd 3.22's.
    package static let protocolMajor = 3
    package static let protocolMinor = 14
    /// The longest report line gpsd_json(5) allows, terminator included (`GPS_JSON_RESPONSE_MAX`).
    package static let maximumLineLength = 4096
    /// How many devices a `DEVICES` or `POLL` report names at most: libgps keeps no more
    /// (`MAXUSERDEVS`) and fails on a longer list.
    package static let maximumDevicesPerReport = 4
    /// Metres of vertical error per unit of VDOP in gpsd's error model (19 m per HDOP horizontally).
    package static let verticalRangeError = 23.0
    /// Metres of horizontal error per unit of HDOP in gpsd's error model.
    package static let horizontalRangeError = 19.0
    /// The time uncertainty gpsd reports for a receiver's NMEA time (10 ms resolution): 0.005 s.
    package static let timeError = 0.005

    /// `VERSION`, sent on connect and for `?VERSION;`.
    package static func version(release: String, revision: String) -> String {
        line { json in
            json.member("class", "VERSION")
            json.member("release", release)
            json.member("rev", revision)
            json.member("proto_major", protocolMajor)
            json.member("proto_minor", protocolMinor)
        }
    }

    /// `ERROR` with a message (cut so the line stays within the limit).
    package static func error(_ message: String) -> String {
        line { json in
            json.member("class", "ERROR")
            json.member("message", String(message.prefix(200)))
        }
    }

    /// One `DEVICE` object (without line end), as in `DEVICES`.
    package static func deviceObject(path: String, activated: Date) -> String {
        var json = JSONWriter(capacity: 128)
        device(path: path, activated: activated, to: &json)
        return json.text
    }

    private static func device(path: String, activated: Date, to json: inout JSONWriter) {
        json.object { json in
            json.member("class", "DEVICE")
            json.member("path", path)
            json.member("driver", "locsim")
            json.member("activated", activated)
            json.member("flags", 1)
        }
    }

    /// `DEVICE` for a device that appeared (a player added), as gpsd tells its watchers of a
    /// receiver plugged in.
    package static func deviceAdded(path: String, activated: Date) -> String {
        deviceObject(path: path, activated: activated) + "\r\n"
    }

    /// `DEVICE` with `"activated":0` for a device that went (a player removed), as gpsd tells its
    /// watchers of a receiver unplugged.
    package static func deviceRemoved(path: String) -> String {
        line { json in
            json.member("class", "DEVICE")
            json.member("path", path)
            json.member("activated", 0)
        }
    }

    /// `DEVICES` naming the first ``maximumDevicesPerReport`` devices, then, with
    /// `announcingTheRest`, a `DEVICE` line for each further one (gpsd announces a device that
    /// appears the same way). Only a client that reads reports should get those lines: one that
    /// reads a fixed exchange (gpsd-py3: `DEVICES`, then `WATCH`) fails on a line it did not expect.
    package static func devices(_ list: [(path: String, activated: Date)], announcingTheRest: Bool) -> String {
        var text = line { json in
            json.member("class", "DEVICES")
            json.key("devices")
            json.array(list.prefix(maximumDevicesPerReport)) { device(path: $1.path, activated: $1.activated, to: &$0) }
        }
        guard announcingTheRest else { return text }
        for device in list.dropFirst(maximumDevicesPerReport) {
            text += deviceAdded(path: device.path, activated: device.activated)
        }
        return text
    }

    /// `WATCH`: the client's watch settings as they now stand.
    package static func watch(_ watch: GPSDWatch) -> String {
        line { json in
            json.member("class", "WATCH")
            json.member("enable", watch.enable)
            json.member("json", watch.json)
            json.member("nmea", watch.nmea)
            json.member("raw", watch.raw)
            json.member("scaled", watch.scaled)
            json.member("timing", watch.timing)
            json.member("split24", watch.split24)
            json.member("pps", watch.pps)
            json.member("device", ifPresent: watch.device)
        }
    }

    /// One report written by `body`, ended by CR LF.
    private static func line(_ body: (inout JSONWriter) -> Void) -> String {
        JSONWriter.objectText(capacity: 160, body) + "\r\n"
    }

    /// A `TPV` object (without line end) for `fix` of `device`; `climb` in m/s when known.
    ///
    /// Mode 1 (no fix) carries only the time. Accuracy: `eph` is the fix's horizontal accuracy,
    /// `epx` = `epy` = eph / √2 (a circular error split over two axes), `epv` the vertical one.
    /// A relayed receiver's own members (``Fix/receiver``: its `status`, `ept`, `epx`/`epy`,
    /// `climb`, `magvar`, `sep` and the rest) are written as it gave them, each in gpsd's place
    /// and with gpsd's decimals, so a client of the relay reads what a client of its gpsd reads.
    package static func tpvObject(device: String, fix: Fix, climb: Double?) -> String {
        let receiver = fix.receiver
        var json = JSONWriter(capacity: receiver == nil ? 320 : 640)
        json.object { json in
            json.member("class", "TPV")
            json.member("device", device)
            append(receiver, Self.status, 0, to: &json)
            json.member("mode", mode(of: fix))
            json.member("time", fix.time)
            append(receiver, Self.leapSeconds, 0, to: &json)
            json.member("ept", receiver?[.ept] ?? timeError, fixedDecimals: 3)
            guard let coordinate = fix.coordinate, fix.hasPosition else { return }
            json.member("lat", coordinate.latitude, fixedDecimals: 9)
            json.member("lon", coordinate.longitude, fixedDecimals: 9)
            let horizontal = finite(fix.horizontalAccuracy)
            let separation = finite(fix.geoidSeparation) ?? 0
            if fix.mode == .threeDimensional, let altitude = finite(fix.altitude) {
                // The fix's geoid separation when its source gave one (a relayed receiver); no geoid
                // model otherwise, so the altitude is reported above the ellipsoid and sea level alike
                // (geoidSep 0).
                json.member("altHAE", altitude + separation, fixedDecimals: 4)
                json.member("altMSL", altitude, fixedDecimals: 4)
                json.member("alt", altitude, fixedDecimals: 4)
            }
            if let receiver {
                // A receiver's own axes, or none when it gave none.
                append(receiver, Self.axisErrors, 3, to: &json)
            } else if let horizontal {
                json.member("epx", horizontal / 2.0.squareRoot(), fixedDecimals: 3)
                json.member("epy", horizontal / 2.0.squareRoot(), fixedDecimals: 3)
            }
            if fix.mode == .threeDimensional, let vertical = finite(fix.verticalAccuracy) {
                json.member("epv", vertical, fixedDecimals: 3)
            }
            if let course = finite(fix.course) { json.member("track", course, fixedDecimals: 4) }
            append(receiver, Self.magneticTrack, 4, to: &json)
            append(receiver, Self.magneticVariation, 1, to: &json)
            if let speed = finite(fix.speed) { json.member("speed", speed, fixedDecimals: 3) }
            if let climb = receiver?[.climb] {
                json.member("climb", climb, fixedDecimals: 3)
            } else if fix.mode == .threeDimensional, let climb = finite(climb) {
                json.member("climb", climb, fixedDecimals: 3)
            }
            append(receiver, Self.courseError, 4, to: &json)
            append(receiver, Self.speedAndClimbErrors, 2, to: &json)
            append(receiver, Self.earthCentred, 2, to: &json)
            if fix.mode == .threeDimensional, fix.altitude != nil {
                json.member("geoidSep", separation, fixedDecimals: 3)
            } else if let separation = finite(fix.geoidSeparation) {
                json.member("geoidSep", separation, fixedDecimals: 3)
            }
            if let horizontal { json.member("eph", horizontal, fixedDecimals: 3) }
            append(receiver, Self.sphericalError, 3, to: &json)
            if let datum = receiver?.datum { json.member("datum", datum) }
            append(receiver, Self.depth, 3, to: &json)
            append(receiver, Self.differentialAge, 1, to: &json)
            append(receiver, Self.differentialStation, 0, to: &json)
            append(receiver, Self.wind, 1, to: &json)
        }
        return json.text
    }

    // A receiver's members in the groups gpsd writes them in, each group with its decimals.
    private static let status: [ReceiverReport.Member] = [.status]
    private static let leapSeconds: [ReceiverReport.Member] = [.leapseconds]
    private static let axisErrors: [ReceiverReport.Member] = [.epx, .epy]
    private static let magneticTrack: [ReceiverReport.Member] = [.magtrack]
    private static let magneticVariation: [ReceiverReport.Member] = [.magvar]
    private static let courseError: [ReceiverReport.Member] = [.epd]
    private static let speedAndClimbErrors: [ReceiverReport.Member] = [.eps, .epc]
    private static let earthCentred: [ReceiverReport.Member] = [.ecefx, .ecefy, .ecefz, .ecefvx, .ecefvy, .ecefvz, .ecefpAcc, .ecefvAcc]
    private static let sphericalError: [ReceiverReport.Member] = [.sep]
    private static let depth: [ReceiverReport.Member] = [.depth]
    private static let differentialAge: [ReceiverReport.Member] = [.dgpsAge]
    private static let differentialStation: [ReceiverReport.Member] = [.dgpsSta]
    private static let wind: [ReceiverReport.Member] = [.wanglem, .wangler, .wanglet, .wspeedr, .wspeedt]

    /// Appends each of `members` the receiver gave, with `decimals` decimals.
    private static func append(_ receiver: ReceiverReport?, _ members: [ReceiverReport.Member], _ decimals: Int, to json: inout JSONWriter) {
        guard let receiver else { return }
        for member in members {
            guard let value = receiver[member] else { continue }
            json.key(member.rawValue)
            json.number(value, fixedDecimals: decimals)
        }
    }

    /// A `SKY` object (without line end) stamped `time`: `sky`'s dilutions and satellites, each
    /// member as gpsd 3.22 writes it (in its order, with its decimals, a member not known left
    /// out) and `nSat`/`uSat` counted from the satellites.
    package static func skyObject(device: String, time: Date, sky: ReceiverReport.Sky) -> String {
        var json = JSONWriter(capacity: 256 + 112 * sky.satellites.count)
        json.object { json in
            json.member("class", "SKY")
            json.member("device", device)
            json.member("time", time)
            for dilution in ReceiverReport.Sky.Dilution.allCases {
                guard let value = sky.dilutions[dilution] else { continue }
                json.key(dilution.rawValue)
                json.number(value, fixedDecimals: 2)
            }
            json.member("nSat", sky.satellites.count)
            json.member("uSat", sky.satellites.count(where: \.used))
            json.key("satellites")
            json.array(sky.satellites) { json, satellite in
                json.object { json in
                    json.member("PRN", satellite.id)
                    if let elevation = finite(satellite.elevation) { json.member("el", elevation, fixedDecimals: 1) }
                    if let azimuth = finite(satellite.azimuth) { json.member("az", azimuth, fixedDecimals: 1) }
                    if let signal = finite(satellite.signal) { json.member("ss", signal, fixedDecimals: 1) }
                    json.member("used", satellite.used)
                    // A simulated satellite is a GPS one, numbered as its PRN.
                    let identity = satellite.signalIdentity ?? Satellite.SignalIdentity(gnssID: 0, svID: satellite.id)
                    json.member("gnssid", identity.gnssID)
                    json.member("svid", identity.svID)
                    if identity.signalID != 0 { json.member("sigid", identity.signalID) }
                    if let frequency = identity.frequencyID { json.member("freqid", frequency) }
                    if identity.health != 0 { json.member("health", identity.health) }
                }
            }
        }
        return json.text
    }

    /// `POLL`: the newest `TPV` and `SKY` (an empty string: none) of as many of `reports`' devices
    /// as fit in one line of ``maximumLineLength`` bytes, ``maximumDevicesPerReport`` at most, with
    /// gpsd 3.22's members in its order (`gst` empty: a player has no pseudorange noise report).
    /// `active` counts every device in `reports`, listed or not, as gpsd counts its active devices
    /// before it writes any of them.
    package static func poll(time: Date, reports: [(tpv: String, sky: String)]) -> String {
        var count = min(reports.count, maximumDevicesPerReport)
        while true {
            let included = reports.prefix(count)
            let text = line { json in
                json.member("class", "POLL")
                json.member("time", time)
                json.member("active", reports.count)
                json.key("tpv")
                json.array(included) { $0.json($1.tpv) }
                json.key("gst")
                json.array([String]()) { $0.json($1) }
                json.key("sky")
                json.array(included.filter { !$0.sky.isEmpty }) { $0.json($1.sky) }
            }
            if text.utf8.count <= maximumLineLength || count == 0 { return text }
            count -= 1
        }
    }

    /// gpsd's mode: 1 no fix, 2 2D, 3 3D.
    static func mode(of fix: Fix) -> Int {
        switch fix.mode {
        case .threeDimensional where fix.coordinate != nil: 3
        case .twoDimensional where fix.coordinate != nil: 2
        default: 1
        }
    }

    static func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
}

/// A client's `?WATCH` settings.
///
/// Package access: one client's `?WATCH` state inside `GPSDFeedServer`.
package struct GPSDWatch: Sendable, Hashable {
    package var enable = false
    package var json = false
    package var nmea = false
    package var raw = 0
    package var scaled = false
    package var timing = false
    package var split24 = false
    package var pps = false
    /// The one device watched, or `nil` for all.
    package var device: String?

    package init() {}
}
