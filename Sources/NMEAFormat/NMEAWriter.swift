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
        /// Which sentences each fix becomes, in this order. Default RMC, GGA, VTG, GSA. Only
        /// these four types can be written.
        public var sentences: [NMEASentenceType]
        /// An explicit accuracy → DOP conversion. Default `nil`: DOP fields are empty.
        public var accuracyModel: NMEAAccuracyModel?
        /// The satellites-in-use count GGA reports for fixes with a position. Default `nil`
        /// (empty field), since ``/LocationCore/Fix`` does not carry it.
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

    /// The sentences for one fix, in ``Options/sentences`` order.
    ///
    /// - Throws: ``NMEAError/Code/invalidValue`` naming the property when the fix cannot be
    ///   written: a non-finite or negative speed, a non-finite course, altitude or accuracy, a
    ///   date outside 1980…2079, or an unsupported sentence type in the options.
    public func sentences(for fix: Fix) throws(NMEAError) -> [NMEASentence] {
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

        let modeIndicator: NMEAModeIndicator = hasPosition ? .autonomous : .notValid
        var result: [NMEASentence] = []
        result.reserveCapacity(options.sentences.count)
        for type in options.sentences {
            switch type {
            case .rmc:
                result.append(
                    .rmc(
                        .init(
                            talker: options.talker, time: time, isActive: hasPosition, coordinate: coordinate,
                            speedKnots: speedKnots, courseTrue: course, date: date, mode: modeIndicator)))
            case .gga:
                result.append(
                    .gga(
                        .init(
                            talker: options.talker, time: time, coordinate: coordinate,
                            quality: hasPosition ? .gps : .invalid,
                            satellitesInUse: hasPosition ? options.satellitesInUse : nil, hdop: hdop,
                            altitudeMSL: altitude)))
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
                            fixMode: hasPosition ? fix.mode : .noFix, pdop: pdop, hdop: hdop, vdop: vdop)))
            default:
                throw Self.invalid("\(type) sentences cannot be written; use RMC, GGA, VTG or GSA")
            }
        }
        return result
    }

    /// The sentences for one fix as text, each followed by ``Options/lineEnding``.
    ///
    /// - Throws: ``NMEAError/Code/invalidValue``; see ``sentences(for:)``.
    public func string(for fix: Fix) throws(NMEAError) -> String {
        var out = ""
        try write(fix, to: &out)
        return out
    }

    /// Appends the sentences for one fix to `output`; nothing is appended if the fix cannot be
    /// written.
    ///
    /// - Throws: ``NMEAError/Code/invalidValue``; see ``sentences(for:)``.
    public func write(_ fix: Fix, to output: inout some TextOutputStream) throws(NMEAError) {
        var text = ""
        for sentence in try sentences(for: fix) {
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

    private static func invalid(_ message: String) -> NMEAError {
        NMEAError(.invalidValue, message: message)
    }
}
