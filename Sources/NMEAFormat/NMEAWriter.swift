#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
public import LocationCore

/// Turns ``/LocationCore/Fix`` values into NMEA 0183 sentences with checksums.
///
/// By default each fix becomes RMC, GGA, VTG and GSA from talker `GP`, each line ending in
/// CR LF. Numbers use the decimals of ``NMEAPrecision``: latitude and longitude as
/// `ddmm.mmmmm` / `dddmm.mmmmm` (≈ 1.8 cm), time `hhmmss.ss`, speed in knots (RMC, VTG) and
/// km/h (VTG) with 3 decimals, course with 2, altitude with 2. Reading the output back with
/// ``NMEAReader`` gives the original fixes to that precision.
///
/// What goes where:
/// - time and date: the fix time rounded to 10 ms, date and time rounded together (so
///   23:59:59.996 becomes 00:00:00.00 of the next day);
/// - position: RMC and GGA; a fix without a position writes RMC status `V`, GGA quality 0 and
///   GSA fix type 1 with empty position fields;
/// - altitude: GGA's altitude above mean sea level (``/LocationCore/Fix/altitude`` is written as is);
/// - speed and course: RMC and VTG (course normalised into 0 ..< 360);
/// - mode: GSA's fix type (1, 2, 3);
/// - satellites: only when the fix's sky is given (``sentences(for:sky:)``): GSA lists the
///   satellites used, GGA counts them, and GSV (when in ``Options/sentences``) tells every
///   satellite in view, four a sentence;
/// - accuracies: only through an explicit ``Options/accuracyModel`` (HDOP in GGA and GSA,
///   VDOP and PDOP in GSA); otherwise the DOP fields are empty.
///
/// ```swift
/// let writer = NMEAWriter(options: .init(talker: .combined))
/// let text = try writer.string(for: fix)   // "$GNRMC,…*hh\r\n$GNGGA,…"
/// ```
public struct NMEAWriter: Sendable {
    /// What the writer emits.
    public struct Options: Sendable, Hashable {
        /// The talker of every sentence. Default ``NMEATalker/gps`` (`GP`).
        public var talker: NMEATalker
        /// Which sentences each fix becomes, in this order. Default RMC, GGA, VTG, GSA. RMC,
        /// GGA, VTG, GSA and GSV can be written; GSV only for a fix whose sky is given.
        public var sentences: [NMEASentenceType]
        /// An explicit accuracy → DOP conversion. Default `nil`: DOP fields are empty.
        public var accuracyModel: NMEAAccuracyModel?
        /// The satellites-in-use count GGA reports for fixes with a position when no sky is
        /// given. Default `nil` (empty field), since ``/LocationCore/Fix`` does not carry it.
        public var satellitesInUse: Int?
        /// The line ending. Default CR LF, as NMEA prescribes.
        public var lineEnding: String

        /// Creates options; see each property for its default.
        public init(
            talker: NMEATalker = .gps, sentences: [NMEASentenceType] = [.rmc, .gga, .vtg, .gsa],
            accuracyModel: NMEAAccuracyModel? = nil, satellitesInUse: Int? = nil, lineEnding: String = "\r\n"
        ) {
            self.talker = talker
            self.sentences = sentences
            self.accuracyModel = accuracyModel
            self.satellitesInUse = satellitesInUse
            self.lineEnding = lineEnding
        }
    }

    /// The writer's options.
    public let options: Options

    /// Creates a writer.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// The most satellites one fix's GSV group can tell: 9 sentences of 4.
    public static let maximumSatellitesInView = 36

    /// The most satellites one GSA can list as used.
    public static let maximumSatellitesInUse = 12

    // What GSV can say of a satellite: its ID, whole degrees of elevation and azimuth (360 as 0),
    // whole dB-Hz.
    private static let satelliteIDs = 1...999
    private static let elevations = 0.0...90
    private static let azimuths = 0.0...360
    private static let signals = 0.0...99

    /// What of a receiver's sky one talker's GSA and GSV can tell: ``maximumSatellitesInView``
    /// in all (the used ones first, then the strongest signals; the rest are left out), of
    /// which the first ``maximumSatellitesInUse`` used stay used, IDs 1…999, an elevation below
    /// the horizon or an azimuth or signal out of range left empty. A real multi-constellation
    /// receiver sees more than one group can say (it writes a GSV group per constellation).
    public static func tellable(_ sky: [Satellite]) -> [Satellite] {
        var kept = sky.filter { satelliteIDs.contains($0.id) }.map { satellite in
            var satellite = satellite
            satellite.elevation = satellite.elevation.flatMap { elevations.contains($0) ? $0 : nil }
            satellite.azimuth = satellite.azimuth.flatMap { azimuths.contains($0) ? $0 : nil }
            satellite.signal = satellite.signal.flatMap { signals.contains($0) ? $0 : nil }
            return satellite
        }
        if kept.count > maximumSatellitesInView {
            let order = kept.indices.sorted { a, b in
                (kept[a].used ? 1 : 0, kept[a].signal ?? -1) > (kept[b].used ? 1 : 0, kept[b].signal ?? -1)
            }
            let chosen = Set(order.prefix(maximumSatellitesInView))
            kept = kept.indices.filter(chosen.contains).map { kept[$0] }
        }
        var used = 0
        for index in kept.indices where kept[index].used {
            used += 1
            if used > maximumSatellitesInUse { kept[index].used = false }
        }
        return kept
    }

    /// The sentences for one fix, in ``Options/sentences`` order.
    ///
    /// - Parameters:
    ///   - fix: The fix.
    ///   - sky: The satellites in view at the fix, or `nil` when unknown: then GSA lists no
    ///     satellites, GGA gives ``Options/satellitesInUse``, and no GSV is written.
    /// - Throws: ``NMEAError/Code/invalidValue`` naming the property when the fix cannot be
    ///   written: a non-finite or negative speed, a non-finite course, altitude or accuracy, a
    ///   date outside 1980…2079, a satellite outside its ranges or more than
    ///   ``maximumSatellitesInView``, or an unsupported sentence type in the options.
    public func sentences(for fix: Fix, sky: [Satellite]? = nil) throws(NMEAError) -> [NMEASentence] {
        // Round date and time together to the 10 ms NMEA writes.
        let centis = (fix.time.timeIntervalSince1970 * 100).rounded()
        guard centis.isFinite, abs(centis) < 1e17 else { throw Self.invalid("time \(fix.time) is not representable") }
        let total = Int64(centis)
        var day = total / 8_640_000
        var centisOfDay = total % 8_640_000
        if centisOfDay < 0 {
            centisOfDay += 8_640_000
            day -= 1
        }
        let (y, m, d) = CivilCalendar.civil(fromDays: Int(day))
        guard (1980...2079).contains(y), let date = NMEADate(year: y, month: m, day: d) else {
            throw Self.invalid("year \(y) is outside 1980…2079, which RMC's two-digit year can say")
        }
        guard let time = NMEATimeOfDay(secondsSinceMidnight: Double(centisOfDay) / 100) else {
            throw Self.invalid("time of day out of range")
        }

        let coordinate = fix.mode == .noFix ? nil : fix.coordinate
        let hasPosition = coordinate != nil
        let speedKnots = try speed(fix, hasPosition).map { $0 / Knot.metresPerSecond }
        let speedKMH = try speed(fix, hasPosition).map { $0 * 3.6 }
        let course = try course(fix, hasPosition)
        let altitude = hasPosition ? fix.altitude : nil
        if let altitude, !altitude.isFinite { throw Self.invalid("altitude \(altitude) is not finite") }

        var hdop: Double?
        var vdop: Double?
        var pdop: Double?
        if let model = options.accuracyModel, hasPosition {
            let uere = model.userEquivalentRangeError
            if let h = fix.horizontalAccuracy {
                guard h.isFinite, h >= 0 else { throw Self.invalid("horizontal accuracy \(h) is not a finite value ≥ 0") }
                hdop = h / uere
            }
            if let v = fix.verticalAccuracy {
                guard v.isFinite, v >= 0 else { throw Self.invalid("vertical accuracy \(v) is not a finite value ≥ 0") }
                vdop = v / uere
            }
            if let hdop, let vdop { pdop = (hdop * hdop + vdop * vdop).squareRoot() }
        }

        let inView = try sky.map { sky throws(NMEAError) in try Self.inView(sky) }
        let used = hasPosition ? (sky ?? []).filter(\.used).map(\.id) : []
        guard used.count <= Self.maximumSatellitesInUse else { throw Self.invalid("\(used.count) satellites used; GSA lists at most \(Self.maximumSatellitesInUse)") }
        let satellitesInUse = hasPosition ? (sky == nil ? options.satellitesInUse : used.count) : nil

        // A relayed receiver's own status, corrections and magnetic variation; a simulated fix
        // has none and is written as an autonomous fix.
        let receiver = hasPosition ? fix.receiver : nil
        let (quality, modeIndicator) = hasPosition ? Self.quality(gpsdStatus: receiver?[.status]) : (.invalid, .notValid)
        let separation = hasPosition && altitude != nil ? fix.geoidSeparation.flatMap { $0.isFinite ? $0 : nil } : nil
        let station = receiver?[.dgpsSta].map { String(Int($0)) }
        var result: [NMEASentence] = []
        result.reserveCapacity(options.sentences.count)
        for type in options.sentences {
            switch type {
            case .rmc:
                result.append(
                    .rmc(
                        .init(
                            talker: options.talker, time: time, isActive: hasPosition, coordinate: coordinate,
                            speedKnots: speedKnots, courseTrue: course, date: date,
                            magneticVariation: receiver?[.magvar], mode: modeIndicator)))
            case .gga:
                result.append(
                    .gga(
                        .init(
                            talker: options.talker, time: time, coordinate: coordinate,
                            quality: quality, satellitesInUse: satellitesInUse, hdop: hdop,
                            altitudeMSL: altitude, geoidSeparation: separation,
                            differentialAge: receiver?[.dgpsAge], differentialStation: station)))
            case .vtg:
                result.append(
                    .vtg(
                        .init(
                            talker: options.talker, courseTrue: course, speedKnots: speedKnots,
                            speedKilometersPerHour: speedKMH, mode: modeIndicator)))
            case .gsa:
                result.append(
                    .gsa(
                        .init(
                            talker: options.talker, selection: .automatic,
                            fixMode: hasPosition ? fix.mode : .noFix, satellites: used, pdop: pdop, hdop: hdop,
                            vdop: vdop)))
            case .gsv:
                guard let inView else { continue }
                let count = max(1, (inView.count + 3) / 4)
                for number in 1...count {
                    let part = Array(inView.dropFirst(4 * (number - 1)).prefix(4))
                    result.append(
                        .gsv(
                            .init(
                                talker: options.talker, count: count, number: number, satellitesInView: inView.count,
                                satellites: part)))
                }
            default:
                throw Self.invalid("\(type) sentences cannot be written; use RMC, GGA, VTG, GSA or GSV")
            }
        }
        return result
    }

    /// GGA's quality and RMC's mode for gpsd's fix status (`STATUS_*` in gps.h): DGPS, RTK fixed
    /// and float, dead reckoning, time only, simulated, PPS; an autonomous fix otherwise.
    static func quality(gpsdStatus status: Double?) -> (NMEAFixQuality, NMEAModeIndicator) {
        switch status.map(Int.init) {
        case 2: (.differential, .differential)
        case 3: (.rtkFixed, .rtkFixed)
        case 4: (.rtkFloat, .rtkFloat)
        case 5, 6: (.estimated, .estimated)
        case 7: (.manual, .manual)
        case 8: (.simulation, .simulator)
        case 9: (.pps, .autonomous)
        default: (.gps, .autonomous)
        }
    }

    /// The sentences for one fix as text, each followed by ``Options/lineEnding``.
    ///
    /// - Throws: ``NMEAError/Code/invalidValue``; see ``sentences(for:sky:)``.
    public func string(for fix: Fix, sky: [Satellite]? = nil) throws(NMEAError) -> String {
        var out = ""
        try write(fix, sky: sky, to: &out)
        return out
    }

    /// Appends the sentences for one fix to `output`; nothing is appended if the fix cannot be
    /// written.
    ///
    /// - Throws: ``NMEAError/Code/invalidValue``; see ``sentences(for:sky:)``.
    public func write(_ fix: Fix, sky: [Satellite]? = nil, to output: inout some TextOutputStream) throws(NMEAError) {
        var text = ""
        for sentence in try sentences(for: fix, sky: sky) {
            text += try sentence.encoded()
            text += options.lineEnding
        }
        output.write(text)
    }

    /// The sentences for many fixes as one text.
    ///
    /// - Throws: ``NMEAError/Code/invalidValue`` for the first fix that cannot be written.
    public func string(for fixes: some Sequence<Fix>) throws(NMEAError) -> String {
        var out = ""
        for fix in fixes { try write(fix, to: &out) }
        return out
    }

    private func speed(_ fix: Fix, _ hasPosition: Bool) throws(NMEAError) -> Double? {
        guard hasPosition, let speed = fix.speed else { return nil }
        guard speed.isFinite, speed >= 0 else { throw Self.invalid("speed \(speed) m/s is not a finite value ≥ 0") }
        return speed
    }

    private func course(_ fix: Fix, _ hasPosition: Bool) throws(NMEAError) -> Double? {
        guard hasPosition, let course = fix.course else { return nil }
        guard course.isFinite else { throw Self.invalid("course \(course) is not finite") }
        return normalizedCourse(course)
    }

    /// `sky` as GSV's satellites: whole degrees and dB-Hz, checked.
    private static func inView(_ sky: [Satellite]) throws(NMEAError) -> [NMEASentence.GSV.Satellite] {
        guard sky.count <= maximumSatellitesInView else {
            throw invalid("\(sky.count) satellites in view; GSV tells at most \(maximumSatellitesInView)")
        }
        var result: [NMEASentence.GSV.Satellite] = []
        result.reserveCapacity(sky.count)
        for satellite in sky {
            guard satelliteIDs.contains(satellite.id) else { throw invalid("satellite ID \(satellite.id) is outside 1…999") }
            if let elevation = satellite.elevation, !elevations.contains(elevation) {
                throw invalid("satellite \(satellite.id): elevation \(elevation) is outside 0…90")
            }
            if let azimuth = satellite.azimuth, !azimuths.contains(azimuth) {
                throw invalid("satellite \(satellite.id): azimuth \(azimuth) is outside 0…360")
            }
            if let signal = satellite.signal, !signals.contains(signal) {
                throw invalid("satellite \(satellite.id): signal-to-noise ratio \(signal) is outside 0…99")
            }
            let azimuth = satellite.azimuth.map { Int($0.rounded()) }
            result.append(
                .init(
                    id: satellite.id, elevation: satellite.elevation.map { Int($0.rounded()) },
                    azimuth: azimuth == 360 ? 0 : azimuth, signal: satellite.signal.map { Int($0.rounded()) }))
        }
        return result
    }

    private static func invalid(_ message: String) -> NMEAError {
        NMEAError(.invalidValue, message: message)
    }
}
