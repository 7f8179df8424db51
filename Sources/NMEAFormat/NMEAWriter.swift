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
///   satellite in view, four a sentence. A sky of GPS alone is one GSA and one GSV group from
///   the writer's talker; a sky of several constellations (or signals) is a GSA for each
///   constellation and a GSV group for each constellation and signal, from the constellation's
///   own talker (`GP`, `GL`, `GA`, `GB`), numbered as gpsd 3.22 reads them back, with NMEA
///   4.10's signal ID when there are several signals (``tellable(_:)`` says what can be told);
/// - datum: a DTM (when in ``Options/sentences``) for a fix whose receiver names its map datum
///   (``/LocationCore/ReceiverReport/datum``, a relayed receiver's or a read log's), with the
///   code for gpsd's name (``NMEASentence/DTM/code(forDatumName:)``) and `W84` as the reference;
///   a fix without a datum has no DTM;
/// - accuracies: a receiver's own DOPs (its sky's, ``/LocationCore/ReceiverReport/Sky/dilutions``)
///   as it told them (unless ``Options/usesReceiverDilutions`` is false), else through an explicit
///   ``Options/accuracyModel`` (HDOP in GGA and GSA, VDOP and PDOP in GSA); otherwise the DOP
///   fields are empty.
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
        /// GGA, VTG, GSA, GSV and DTM can be written; GSV only for a fix whose sky is given, DTM
        /// only for a fix whose receiver names a datum.
        public var sentences: [NMEASentenceType]
        /// An explicit accuracy → DOP conversion. Default `nil`: DOP fields are empty.
        public var accuracyModel: NMEAAccuracyModel?
        /// The satellites-in-use count GGA reports for fixes with a position when no sky is
        /// given. Default `nil` (empty field), since ``/LocationCore/Fix`` does not carry it.
        public var satellitesInUse: Int?
        /// The line ending. Default CR LF, as NMEA prescribes.
        public var lineEnding: String
        /// Whether a receiver's own DOPs (its sky's, ``/LocationCore/ReceiverReport/Sky/dilutions``)
        /// are written over ``accuracyModel``'s. Default `true`: a relayed receiver's DOPs reach
        /// the gpsd reading the output as the receiver told them.
        ///
        /// `false` writes every DOP from the fix's own accuracies through ``accuracyModel`` (none
        /// without a model or an accuracy): for a recording, whose accuracies are read back from
        /// its HDOP. A fix's sky is the newest one told before the fix, not necessarily its own
        /// epoch's: gpsd 3.22 sends an epoch's `SKY` after that epoch's `TPV` when the receiver
        /// sends GSA after RMC and GGA (a Quectel EG25-G does), so each `TPV` goes with the
        /// previous epoch's DOPs while its accuracy is its own.
        public var usesReceiverDilutions: Bool

        /// Creates options; see each property for its default.
        public init(
            talker: NMEATalker = .gps, sentences: [NMEASentenceType] = [.rmc, .gga, .vtg, .gsa],
            accuracyModel: NMEAAccuracyModel? = nil, satellitesInUse: Int? = nil, lineEnding: String = "\r\n",
            usesReceiverDilutions: Bool = true
        ) {
            self.talker = talker
            self.sentences = sentences
            self.accuracyModel = accuracyModel
            self.satellitesInUse = satellitesInUse
            self.lineEnding = lineEnding
            self.usesReceiverDilutions = usesReceiverDilutions
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
    /// - Parameters:
    ///   - fix: The fix.
    ///   - sky: The satellites in view at the fix, or `nil` when unknown: then GSA lists no
    ///     satellites, GGA gives ``Options/satellitesInUse``, and no GSV is written.
    /// - Throws: ``NMEAError/Code/invalidValue`` naming the property when the fix cannot be
    ///   written: a non-finite or negative speed, a non-finite course, altitude or accuracy, a
    ///   date outside 1980…2079, a satellite NMEA cannot number or outside its ranges, more than
    ///   ``maximumSatellitesInView`` of one constellation and signal or more than
    ///   ``maximumSatellitesInUse`` used of one constellation, or an unsupported sentence type in
    ///   the options. ``tellable(_:)`` keeps what can be written.
    /// The time a fix `secondsSince1970` after 1970 is written with, in centiseconds (rounded to
    /// the 10 ms NMEA's `hhmmss.ss` holds): two fixes with one stamp are one time to whoever
    /// reads them. Nil for a time no sentence can hold.
    package static func stamp(secondsSince1970: Double) -> Int64? {
        let centis = (secondsSince1970 * 100).rounded()
        guard centis.isFinite, abs(centis) < 1e17 else { return nil }
        return Int64(centis)
    }

    public func sentences(for fix: Fix, sky: [Satellite]? = nil) throws(NMEAError) -> [NMEASentence] {
        // Round date and time together to the 10 ms NMEA writes.
        guard let total = Self.stamp(secondsSince1970: fix.time.timeIntervalSince1970) else { throw Self.invalid("time \(fix.time) is not representable") }
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
        // A receiver's own DOPs, as its sky told them (a relayed receiver's, a replayed log's),
        // over any model's: a gpsd reading the NMEA then reports what the receiver did.
        // The sky keeps only finite dilutions; a negative one, which no DOP can be, is left out.
        // A recording (``Options/usesReceiverDilutions`` false) keeps the fix's own accuracy.
        if hasPosition, options.usesReceiverDilutions, let told = fix.receiver?.skyDilutions?.filter({ $0.value >= 0 }),
            told[.pdop] != nil || told[.hdop] != nil || told[.vdop] != nil
        {
            (pdop, hdop, vdop) = (told[.pdop], told[.hdop], told[.vdop])
        }

        let layout = try sky.map { sky throws(NMEAError) in try SkyLayout(sky, hasPosition: hasPosition) }
        let satellitesInUse = hasPosition ? (layout.map(\.usedCount) ?? options.satellitesInUse) : nil

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
                // One GSA, or with several constellations one from each one's talker.
                let single = layout?.isSingle ?? true
                for used in layout?.used ?? [.init(talker: options.talker, ids: [])] {
                    result.append(
                        .gsa(
                            .init(
                                talker: single ? options.talker : used.talker, selection: .automatic,
                                fixMode: hasPosition ? fix.mode : .noFix, satellites: used.ids, pdop: pdop, hdop: hdop,
                                vdop: vdop)))
                }
            case .gsv:
                guard let layout else { continue }
                let groups = layout.groups.isEmpty ? [.init(talker: options.talker, signal: 1, satellites: [])] : layout.groups
                for group in groups {
                    let count = max(1, (group.satellites.count + 3) / 4)
                    for number in 1...count {
                        result.append(
                            .gsv(
                                .init(
                                    talker: layout.isSingle ? options.talker : group.talker, count: count, number: number,
                                    satellitesInView: group.satellites.count,
                                    satellites: Array(group.satellites.dropFirst(4 * (number - 1)).prefix(4)),
                                    signalID: layout.namesSignals ? group.signal : nil)))
                    }
                }
            case .dtm:
                guard let datum = fix.receiver?.datum else { continue }
                let code = NMEASentence.DTM.code(forDatumName: datum)
                // WGS 84 is the reference itself; another datum's offsets are not known here.
                let offset: Double? = code == "W84" ? 0 : nil
                result.append(
                    .dtm(
                        .init(
                            talker: options.talker, localDatum: code, latitudeOffset: offset, longitudeOffset: offset,
                            altitudeOffset: offset, referenceDatum: "W84")))
            default:
                throw Self.invalid("\(type) sentences cannot be written; use RMC, GGA, VTG, GSA, GSV or DTM")
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

    static func invalid(_ message: String) -> NMEAError {
        NMEAError(.invalidValue, message: message)
    }
}
