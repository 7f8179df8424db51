import Foundation
import LocationCore
import LocationFeed
import LocationGPSD
import LocationTestSupport
import NMEAFormat
import LocSimTestHelpers
import Testing

/// Real receivers: each `../shared/data/gpsd/NAME.log` (raw NMEA captured from a real receiver,
/// from gpsd's regression suite) is fed to a real gpsd one sentence at a time, in lock-step with
/// the provider (``LockStepFeed``), so that the result does not depend on how loaded the machine
/// is. The provider's fixes must be the positions gpsd's own regression run expects
/// (`NAME.tpv.jsonl`), to 1e-6°.
///
/// Two references, both in the same run:
/// - **gpsd's expectations** (`NAME.tpv.jsonl`, produced by gpsd 3.27): every positioned fix must
///   match an expected report's position to 1e-6° at the same time of day, and at most the first
///   few expected reports may be missing.
/// - **what this gpsd actually sent**, read by a raw-socket JSON client subscribed alongside: the
///   provider must relay exactly those positions and times. Where Debian 12's gpsd 3.22 itself
///   decodes a log differently from 3.27 (listed in ``knownDifferences``), this is what shows the
///   difference is the daemon's and not the provider's.
///
/// Times are compared by time of day: gpsd 3.22 moves dates of logs recorded before its build
/// forward by 1024 weeks (its GPS week-rollover guard) and rolls the day when a log's clock jumps
/// backwards, while the positions and times of day agree.
@Suite(
    .enabled(if: GPSDLogs.isPresent, SharedData.absentReason),
    .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"),
    .timeLimit(.minutes(1)))
struct GPSDReceiverLogTests {
    /// Logs where gpsd 3.22's own output departs from 3.27's expectations, and why. For these
    /// the provider is still held to exactly what gpsd 3.22 sent; only the comparison with
    /// 3.27's expectations is relaxed as stated.
    static let knownDifferences: [String: (relaxation: Relaxation, reason: String)] = [
        "furuno_gl_ga": (.missingAllowed, "gpsd 3.22 treats GGA with 00 satellites used as no fix; 3.27 reports the position"),
        "bundg_zeus_9": (
            .daemonOnly,
            "B&G sends RMC, GGA and GLL with different positions in each second; gpsd 3.22 reports the "
                + "RMC/GLL positions (a third of its fixes) that 3.27 merges away, stamped with times 3.27 leaves out"),
    ]

    enum Relaxation {
        /// Expected reports may be missing (gpsd 3.22 reports fewer positions).
        case missingAllowed
        /// Only the comparison with what gpsd 3.22 sent applies.
        case daemonOnly
    }

    /// Expected epochs (distinct report times) at the start of a log that may be missing: gpsd
    /// needs a sentence or two (a date, a mode) before its reports carry a time.
    static let allowedLeadingMisses = 3

    /// The sentences of one test case at most: each costs a round trip through gpsd and the
    /// provider (3.4 ms on an idle machine until the gpsd reader stopped appending 16 KiB of zeros
    /// to every read, 2026-12-02; several times that beside two CPU hogs). Parts also let one
    /// log's cases run side by side.
    static let maximumSentences = 1_250

    /// One test case's share of a log: the whole log, or, for a log of more than
    /// ``maximumSentences`` that is held to gpsd 3.22's own output alone (``Relaxation/daemonOnly``),
    /// one of its parts, fed to a gpsd of its own. bundg_zeus_9's 4,999 sentences in one case took
    /// 17 s alone and passed the minute beside two CPU hogs (2026-12-01).
    struct LogPart: Sendable, CustomTestStringConvertible {
        let name: String
        let part: Int
        let parts: Int
        var testDescription: String { parts == 1 ? name : "\(name) part \(part + 1) of \(parts)" }

        /// Its sentences: the log's `$` and `!` lines, this part's share of them.
        func sentences() throws -> [String] {
            let all = try GPSDReceiverLogTests.sentences(of: name)
            let size = (all.count + parts - 1) / parts
            return Array(all[min(all.count, part * size)..<min(all.count, (part + 1) * size)])
        }
    }

    /// Every log as the test's cases, the largest first (``GPSDLogs/names``).
    static let logParts: [LogPart] = GPSDLogs.names.flatMap { name -> [LogPart] in
        // A log that cannot be read here is one case, which reports why.
        let count = (try? sentences(of: name).count) ?? 0
        let parts = knownDifferences[name]?.relaxation == .daemonOnly ? max(1, (count + maximumSentences - 1) / maximumSentences) : 1
        return (0..<parts).map { LogPart(name: name, part: $0, parts: parts) }
    }

    static func sentences(of name: String) throws -> [String] {
        try String(contentsOf: GPSDLogs.url(name + ".log"), encoding: .isoLatin1)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("$") || $0.hasPrefix("!") }
    }

    // Not serialized: each log has a daemon of its own, lock-step feeding keeps the result
    // independent of load, and `scripts/test.sh` bounds how many cases run at once. Serialized,
    // each case waited at the back of that bound's queue for the one before it, so 40 s of work
    // was spread over the whole run and ended it (docs/development/testing.md).
    @Test("Fixes match gpsd's regression expectations", arguments: logParts)
    func receiverLog(log: LogPart) async throws {
        let name = log.name
        let sentences = try log.sentences()
        let expected = try ExpectedReport.load(GPSDLogs.url(name + ".tpv.jsonl"))
        let run = try await LiveGPSD.lockStepRun(sentences)
        let (reference, fixes) = (run.reference, run.fixes)

        // 1. What this gpsd sent, in order. Live data keeps the newest fix when the consumer is
        //    behind, so the reports gpsd sent for one sentence may reach it as one; but every fix
        //    is one of gpsd's reports, in gpsd's order, and every epoch gpsd reported is there.
        //    Relayed, each is the report gpsd sent, member for member (``RelayedReport``).
        var cursor = reference.startIndex
        var relayed = RelayedReport()
        for fix in fixes {
            guard let index = reference[cursor...].firstIndex(where: { $0.matches(fix) }) else {
                Issue.record("\(name): fix \(fix) is not among gpsd's reports after index \(cursor)")
                break
            }
            cursor = index + 1
            try relayed.compare(fix, with: reference[index].json)
            try relayed.compareSky(fix, with: reference[index].sky)
        }
        #expect(relayed.differences.isEmpty, "\(name): \(relayed.differences.count) members relayed unlike gpsd: \(relayed.differences.prefix(5))")
        #expect(
            Set(fixes.map(\.time)) == Set(reference.compactMap(\.time)),
            "\(name): the provider's epochs differ from gpsd's")
        // What `replay --gpsd`'s map logic sees (``GPSDEpochs``): of each run of reports gpsd sent
        // with one time, the last, in gpsd's order.
        var oneEach = GPSDEpochs()
        var mapFixes = fixes.flatMap { oneEach.take($0) }
        if let last = oneEach.finish() { mapFixes.append(last) }
        let lastOfEachRun = reference.indices.filter { $0 == reference.count - 1 || reference[$0 + 1].time != reference[$0].time }
        #expect(mapFixes.count == lastOfEachRun.count, "\(name): \(mapFixes.count) epochs seen, gpsd reported \(lastOfEachRun.count)")
        for (fix, index) in zip(mapFixes, lastOfEachRun) where !reference[index].matches(fix) {
            Issue.record("\(name): the epoch at \(fix.time) is not gpsd's last report with that time")
            break
        }

        // 2. The log read by locsim's own NMEA reader: each fix's sky is one gpsd reported.
        let gpsdSkies = run.received.map(\.text).filter { $0.contains(#""class":"SKY""#) }
        let read = try NMEAReader.fixes(in: sentences.joined(separator: "\r\n"), options: .lenient).fixes
        var skies = ReadSky(log: name)
        try skies.compare(read, with: gpsdSkies)
        #expect(skies.differences.isEmpty, "\(name): \(skies.differences.count) skies unlike gpsd's: \(skies.differences.prefix(3))")

        // 3. gpsd's regression expectations.
        let difference = Self.knownDifferences[name]
        if difference?.relaxation == .daemonOnly { return }
        let unexpected = fixes.filter { fix in !expected.contains { $0.matches(fix) } }
        #expect(
            unexpected.isEmpty,
            "\(name): \(unexpected.count) fixes not in \(name).tpv.jsonl, first \(String(describing: unexpected.first))")

        var epochs: [Int] = []
        for report in expected {
            if let time = report.time, !epochs.contains(ExpectedReport.timeOfDay(time)) {
                epochs.append(ExpectedReport.timeOfDay(time))
            }
        }
        let seen = Set(fixes.map { ExpectedReport.timeOfDay($0.time) })
        let missing = epochs.indices.filter { !seen.contains(epochs[$0]) }
        if difference?.relaxation != .missingAllowed {
            #expect(
                missing.allSatisfy { $0 < Self.allowedLeadingMisses },
                "\(name): missed \(missing.count) of \(epochs.count) expected epochs, at indices \(missing.prefix(5))")
        }
        #expect(!fixes.isEmpty || epochs.isEmpty, "\(name): no fixes at all")
    }

    /// No log here has a `DTM` sentence, so a receiver that sends one is made: an epoch names
    /// a datum right after its RMC (gpsd starts a new report at an RMC of a new time, so a datum
    /// before it is lost), by each code gpsd's table names, by one it does not, by one longer than
    /// gpsd keeps, and some epochs name none; a DGPS GGA gives the members gpsd writes after
    /// `datum`.
    ///
    /// Three readers of the same sentences, each held to what this gpsd reported for each epoch:
    /// the relay (``GPSDProvider``'s fixes, written as the feed's `TPV`), ``NMEAReader`` (the
    /// datum it names), and ``NMEAWriter``'s output of the reader's fixes fed to a second gpsd.
    static let datumCodes: [String?] = ["W72", "999", nil, "S85", "P90", nil, "W84", "N27", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghi"]

    @Test("A receiver naming its map datum (DTM): the relay, the NMEA reader and writer each give gpsd's datum")
    func mapDatum() async throws {
        var sentences: [String] = []
        for (index, epoch) in LiveGPSD.epochs(count: Self.datumCodes.count).enumerated() {
            sentences.append(epoch.sentences[0])
            if let code = Self.datumCodes[index] {
                sentences.append(TestNMEA.checksummed("GPDTM,\(code),,0.00,N,0.00,E,0.0,W84"))
            }
            // A DGPS GGA, its checksum again for the quality and DGPS fields it now has.
            let gga: String = epoch.sentences[1].replacingOccurrences(of: ",1,08,", with: ",2,08,")
                .replacingOccurrences(of: ",M,,*", with: ",M,2.0,0120*")
            sentences.append(TestNMEA.checksummed(String(gga.dropFirst().prefix { $0 != "*" })))
            sentences.append(epoch.sentences[2])
        }
        let run = try await LiveGPSD.lockStepRun(sentences)
        let reference = run.reference
        // gpsd itself names the datum (its name for a code it knows, the code otherwise).
        let named = reference.filter { $0.json.contains(#""datum":"#) }
        #expect(named.count >= 5, "gpsd named no datum: \(reference.last?.json ?? "")")

        var relayed = RelayedReport()
        var cursor = reference.startIndex
        for fix in run.fixes {
            let index = try #require(reference[cursor...].firstIndex { $0.matches(fix) }, "fix \(fix) is not among gpsd's reports")
            cursor = index + 1
            try relayed.compare(fix, with: reference[index].json)
        }
        #expect(relayed.differences.isEmpty, "\(relayed.differences.prefix(5))")
        #expect(run.fixes.contains { $0.receiver?.datum != nil })

        // The reader names each epoch's datum as gpsd's last report of the epoch did (gpsd
        // reports an epoch as its sentences come; the reader makes one fix of the whole epoch).
        let epochs = try Self.lastDatums(reference)
        #expect(epochs.count == Self.datumCodes.count)
        #expect(epochs.values.contains { $0 == nil } && epochs.values.filter { $0 != nil }.count == 7, "\(epochs)")
        let read = try NMEAReader.fixes(in: sentences.joined(separator: "\r\n")).fixes
        #expect(read.count == epochs.count)
        for fix in read {
            let datum = try #require(epochs[fix.time], "the reader's fix at \(fix.time) is no epoch gpsd reported")
            #expect(fix.receiver?.datum == datum, "at \(fix.time)")
        }

        // The writer's NMEA of those fixes makes a gpsd name the same datums.
        let writer = NMEAWriter(options: .gpsd())
        let written = try read.flatMap { fix in try writer.sentences(for: fix).map { try $0.encoded() } }
        let again = try Self.lastDatums(try await LiveGPSD.lockStepRun(written).reference)
        #expect(again == epochs)
    }

    /// The `datum` of gpsd's last report of each epoch (`nil` when it names none), by time.
    static func lastDatums(_ reports: [RawGPSDClient.TPV]) throws -> [Date: String?] {
        var datums: [Date: String?] = [:]
        for report in reports {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
            datums[try #require(report.time)] = .some(object["datum"] as? String)
        }
        return datums
    }
}

/// One positioned `TPV` from `NAME.tpv.jsonl`.
struct ExpectedReport {
    let time: Date?
    let latitude: Double
    let longitude: Double

    static func load(_ url: URL) throws -> [ExpectedReport] {
        try String(contentsOf: url, encoding: .utf8).split(whereSeparator: \.isNewline).compactMap { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard (object["mode"] as? Int ?? 0) >= 2, let lat = object["lat"] as? Double, let lon = object["lon"] as? Double
            else { return nil }
            let time = try (object["time"] as? String).map { text in
                try #require(UTCTimestamp.parse(text), "bad time \(text) in \(url.lastPathComponent)")
            }
            return ExpectedReport(time: time, latitude: lat, longitude: lon)
        }
    }

    /// Same position to 1e-6°, and (when the report has a time) the same time of day.
    func matches(_ fix: Fix) -> Bool {
        guard let coordinate = fix.coordinate,
            abs(coordinate.latitude - latitude) <= 1e-6, abs(coordinate.longitude - longitude) <= 1e-6
        else { return false }
        guard let time else { return true }
        return Self.timeOfDay(time) == Self.timeOfDay(fix.time)
    }

    /// Milliseconds since midnight UTC.
    static func timeOfDay(_ date: Date) -> Int {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        return ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000
    }
}

/// What the feed writes for a relayed receiver's fix beside what gpsd wrote for it: the same
/// members (but `device`), each with the same value to the decimals gpsd writes, but for the
/// differences ``isIntended(_:ours:theirs:mode:)`` names.
struct RelayedReport {
    private(set) var differences: [String] = []

    mutating func compare(_ fix: Fix, with gpsd: String) throws {
        let theirs = try Self.members(gpsd)
        let ours = try Self.members(GPSDReport.tpvObject(device: "relay", fix: fix, climb: nil))
        compare(ours, with: theirs, at: "\(fix.time)")
    }

    /// Compares the `SKY` the feed writes beside a relayed fix with gpsd's newest `SKY` before
    /// the fix's `TPV`, member for member and satellite for satellite (`time` aside: the feed
    /// stamps its SKY with the fix's time, gpsd 3.22 gives an NMEA receiver's none).
    mutating func compareSky(_ fix: Fix, with gpsd: String?) throws {
        guard let gpsd else {
            if let sky = fix.receiver?.sky { differences.append("a sky \(sky) where gpsd sent no SKY, at \(fix.time)") }
            return
        }
        guard let sky = fix.receiver?.sky else {
            differences.append("no sky relayed where gpsd sent \(gpsd.prefix(80)), at \(fix.time)")
            return
        }
        var theirs = try Self.members(gpsd)
        var ours = try Self.members(GPSDReport.skyObject(device: "relay", time: fix.time, sky: sky))
        theirs["time"] = nil
        ours["time"] = nil
        let theirSatellites = theirs.removeValue(forKey: "satellites") as? [[String: Any]] ?? []
        let ourSatellites = ours.removeValue(forKey: "satellites") as? [[String: Any]] ?? []
        compare(ours, with: theirs, at: "SKY \(fix.time)")
        guard theirSatellites.count == ourSatellites.count else {
            differences.append("\(ourSatellites.count) satellites for gpsd's \(theirSatellites.count) at \(fix.time)")
            return
        }
        for (index, (mine, gpsds)) in zip(ourSatellites, theirSatellites).enumerated() {
            compare(mine, with: gpsds, at: "SKY \(fix.time) satellite \(index + 1)")
        }
    }

    /// Compares a relayed `TPV`'s members with gpsd's own.
    mutating func compare(_ ours: [String: Any], with theirs: [String: Any], at time: String) {
        for name in Set(theirs.keys).union(ours.keys).subtracting(["device"]).sorted() {
            switch (theirs[name], ours[name]) {
            case let (a as Double, b as Double) where abs(a - b) <= 1e-9 * max(1, abs(a)): continue
            case let (a as String, b as String) where a == b: continue
            case let (a, b) where Self.isIntended(name, ours: b, theirs: a, mode: theirs["mode"] as? Int ?? 0): continue
            case let (a, b):
                differences.append("\(name) \(b.map { "\($0)" } ?? "missing") for gpsd's \(a.map { "\($0)" } ?? "none") at \(time)")
            }
        }
    }

    /// The relay's departures from gpsd, each for a reason of ``Fix``'s:
    /// - a 2D fix's heights and `epv`: gpsd_json(5) calls them valid in mode 3 only, and a fix
    ///   keeps them for 3D fixes alone (sl869 and ait250 send them with a 2D fix);
    /// - `eph` where gpsd sent only `epx` and `epy`: the fix's horizontal accuracy,
    ///   √(epx² + epy²), which the feed writes for every fix that has one (ait250);
    /// - `altHAE` to 1 mm: the feed writes `altMSL` + `geoidSep`, each as gpsd rounded it
    ///   (quectelLC79D's receiver gives the height above the ellipsoid to 0.1 mm).
    static func isIntended(_ name: String, ours: Any?, theirs: Any?, mode: Int) -> Bool {
        switch (name, ours, theirs) {
        case ("alt", nil, _?), ("altHAE", nil, _?), ("altMSL", nil, _?), ("epv", nil, _?): mode == 2
        case ("eph", _?, nil): true
        case let ("altHAE", a as Double, b as Double): abs(a - b) <= 1e-3
        default: false
        }
    }

    private static func members(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }
}

/// The sky ``NMEAReader`` reads from a receiver's log beside the `SKY` reports a real gpsd made
/// of it: every fix's sky must be one of gpsd's, satellite for satellite (`PRN`, `gnssid`,
/// `svid`, `sigid`, `el`, `az`, `ss`, in order; gpsd 3.22 writes an empty field as 0), with the same
/// satellites used and the same PDOP, HDOP and VDOP; and from the first sky on, every fix has one.
/// An empty sky is not compared: gpsd 3.22 empties its sky on a GSV group with no satellite (or
/// none with an azimuth) without a report.
///
/// Where gpsd 3.22 reads a log otherwise (``Departure``), only the rest is compared.
struct ReadSky {
    /// How gpsd 3.22 departs from the reader on some receivers' logs.
    enum Departure {
        /// gpsd restarts its sky at each `GPGSV` group (of the L1 signal, as it reads NMEA 4.10
        /// signal IDs), taking it to come first in an epoch; these receivers send other groups
        /// before it, and gpsd's skies lack them or the GPS satellites. Each satellite read
        /// that gpsd reported at all must be one of its reports, with the same values.
        case restartsAtGPGSV
        /// gpsd numbers IDs above 32 from a `GA` or `BD` talker (Galileo E33–E36, BeiDou
        /// C33–C63) as SBAS satellites, at least in some signals' groups: compared as gpsd
        /// numbers them.
        case numbersHighIDsAsSBAS
        /// The satellites used are not compared: the reason is in ``departures``.
        case marksUsedOtherwise
        /// gpsd ignores the DOPs of a GSA with more than 12 satellite slots and computes its
        /// own: the DOPs are not compared.
        case computesDOPs
    }

    static let departures: [String: (Set<Departure>, reason: String)] = [
        "quectel-eg25-g": ([.restartsAtGPGSV], "GLGSV before GPGSV"),
        "telit-pls83-w": ([.restartsAtGPGSV], "GLGSV, BDGSV and GAGSV before GPGSV"),
        "st-teseo-liv4f": (
            [.restartsAtGPGSV, .numbersHighIDsAsSBAS],
            "a second GPGSV group, of signal 8, after the GAGSV and BDGSV groups; BeiDou C38 of signal 1 numbered as SBAS"
        ),
        "ublox-zed-f9p-nmea": (
            [.numbersHighIDsAsSBAS, .marksUsedOtherwise],
            "Galileo E33 in GAGSV; gpsd reads the GNGSA lists without their system IDs and marks no Galileo or BeiDou satellite used"
        ),
        "furuno_gl_ga": ([.marksUsedOtherwise], "gpsd reads the Galileo GNGSA without its system ID and marks SBAS 36 used for Galileo E36"),
        "quectel": ([.marksUsedOtherwise], "at 02:20:25 gpsd marks PRN 1 used, which that epoch's GSA does not list (the next one does); cause not found"),
        "ch-4701": ([.computesDOPs], "its GSA lists 24 satellite slots"),
    ]

    let departures: Set<Departure>
    private(set) var differences: [String] = []

    init(log name: String) { departures = Self.departures[name]?.0 ?? [] }

    private struct Key: Hashable, CustomStringConvertible {
        var prn: Int, gnssID: Int, svID: Int, signalID: Int, elevation: Double, azimuth: Double, signal: Double
        var description: String { "\(prn)(\(gnssID):\(svID):\(signalID)) \(elevation)/\(azimuth)/\(signal)" }

        /// As gpsd 3.22 numbers it (``Departure/numbersHighIDsAsSBAS``).
        var asGPSD: Key {
            guard gnssID == 2 || gnssID == 3, (33...64).contains(svID) else { return self }
            var key = self
            (key.prn, key.gnssID, key.svID) = (svID, 1, svID + 87)
            return key
        }
    }

    private struct Report {
        var keys: [Key]
        var used: [Bool]
        var dops: [Double?]
    }

    mutating func compare(_ fixes: [Fix], with gpsd: [String]) throws {
        let theirs = try gpsd.map(Self.report)
        let reported = Set(theirs.flatMap(\.keys))
        let reportedPRNs = Set(reported.map(\.prn))
        var seenSky = false
        for fix in fixes {
            guard let sky = fix.receiver?.sky else {
                if seenSky { differences.append("no sky at \(fix.time) after one") }
                continue
            }
            seenSky = true
            if sky.satellites.isEmpty { continue }
            var ours = try Self.report(GPSDReport.skyObject(device: "log", time: fix.time, sky: sky))
            if departures.contains(.restartsAtGPGSV) {
                let unlike = ours.keys.filter { key in
                    let gpsds = departures.contains(.numbersHighIDsAsSBAS) ? key.asGPSD : key
                    return (reportedPRNs.contains(key.prn) && !reported.contains(key)) && !reported.contains(gpsds)
                }
                if !unlike.isEmpty { differences.append("at \(fix.time) satellites unlike gpsd's reports: \(unlike.prefix(4))") }
                continue
            }
            if departures.contains(.numbersHighIDsAsSBAS) { ours.keys = ours.keys.map(\.asGPSD) }
            let same = theirs.filter { $0.keys == ours.keys }
            guard !same.isEmpty else {
                let nearest = theirs.max { Set($0.keys).intersection(ours.keys).count < Set($1.keys).intersection(ours.keys).count }
                differences.append(
                    "at \(fix.time) \(ours.keys.count) satellites, none of gpsd's skies; the nearest has \(nearest?.keys.count ?? 0), "
                        + "only ours \(Array(Set(ours.keys).subtracting(nearest?.keys ?? [])).prefix(4)), "
                        + "only gpsd's \(Array(Set(nearest?.keys ?? []).subtracting(ours.keys)).prefix(4))")
                continue
            }
            let usedAlike = departures.contains(.marksUsedOtherwise) ? same : same.filter { $0.used == ours.used }
            guard !usedAlike.isEmpty else {
                func usedPRNs(_ report: Report) -> [Int] { report.keys.indices.filter { report.used[$0] }.map { report.keys[$0].prn } }
                differences.append("at \(fix.time) used: ours \(usedPRNs(ours)), gpsd's \(same.prefix(2).map(usedPRNs))")
                continue
            }
            if !departures.contains(.computesDOPs), !usedAlike.contains(where: { $0.dops == ours.dops }) {
                differences.append("at \(fix.time) DOPs: ours \(ours.dops), gpsd's \(usedAlike.prefix(2).map(\.dops))")
            }
        }
    }

    private static func report(_ line: String) throws -> Report {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        let satellites = object["satellites"] as? [[String: Any]] ?? []
        let keys = satellites.map { s in
            Key(
                prn: s["PRN"] as? Int ?? -1, gnssID: s["gnssid"] as? Int ?? -1, svID: s["svid"] as? Int ?? -1,
                signalID: s["sigid"] as? Int ?? 0, elevation: s["el"] as? Double ?? 0, azimuth: s["az"] as? Double ?? 0, signal: s["ss"] as? Double ?? 0)
        }
        return Report(
            keys: keys, used: satellites.map { $0["used"] as? Bool ?? false }, dops: ["pdop", "hdop", "vdop"].map { object[$0] as? Double })
    }
}
