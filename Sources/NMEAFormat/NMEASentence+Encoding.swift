internal import LocationCore

/// The number of decimals this module writes for each kind of field, and so the precision of
/// a ``/LocationCore/Fix`` → sentences → ``/LocationCore/Fix`` round trip (half a unit of the last digit).
///
/// Public so that callers comparing round-tripped fixes can derive their tolerances from it, as
/// this package's own round-trip tests do.
public enum NMEAPrecision {
    /// Minutes of latitude and longitude: `ddmm.mmmmm` / `dddmm.mmmmm`. One unit is 10⁻⁵′ =
    /// 1.67 × 10⁻⁷° ≈ 1.85 cm of latitude; a round trip is within half of that.
    public static let minuteDecimals = 5
    /// Seconds of the time of day: `hhmmss.ss`, 10 ms.
    public static let timeDecimals = 2
    /// Speed in knots (RMC, VTG) and km/h (VTG): 0.001 kn ≈ 0.5 mm/s.
    public static let speedDecimals = 3
    /// Course over ground in degrees: 0.01°.
    public static let courseDecimals = 2
    /// Altitude and geoid separation in metres: 1 cm.
    public static let altitudeDecimals = 2
    /// PDOP, HDOP and VDOP: 0.01.
    public static let dopDecimals = 2
    /// A datum's latitude and longitude offsets in minutes (DTM): 10⁻⁴′ ≈ 1.9 mm. Its altitude
    /// offset is in metres with ``altitudeDecimals``.
    public static let datumOffsetDecimals = 4
}

extension NMEASentence {
    /// The sentence as NMEA text: `$GPRMC,…*hh`, with its checksum and without a line ending.
    ///
    /// Numbers are written with the decimals of ``NMEAPrecision``; empty (`nil`) values are
    /// empty fields. RMC is written with 12 fields (13 when ``RMC/navigationalStatus`` is set),
    /// GGA with 14, VTG with 9 (8 without a mode), GSA with 17 (18 with a system ID), GSV with 3
    /// and 4 for each satellite (one more with a signal ID), DTM with 8.
    ///
    /// - Throws: ``NMEAError/Code/invalidValue`` naming the field when a value cannot be
    ///   written: not finite, negative where NMEA has no sign, a course outside 0…360, a year
    ///   outside 1980…2079, a time of day that rounds to 24:00:00.00, text with `,` `*` `$`.
    public func encoded() throws(NMEAError) -> String {
        var e = SentenceEncoder(talker: talker, type: type)
        switch self {
        case .rmc(let s):
            try e.time(s.time)
            e.field(s.isActive ? "A" : "V")
            try e.coordinate(s.coordinate)
            try e.number(s.speedKnots, NMEAPrecision.speedDecimals, "speed", nonNegative: true)
            try e.course(s.courseTrue, "course")
            try e.date(s.date)
            if let variation = s.magneticVariation {
                try e.number(abs(variation), 1, "magnetic variation", nonNegative: true)
                e.field(variation < 0 ? "W" : "E")
            } else {
                e.field("")
                e.field("")
            }
            e.field(s.mode.map { String($0.rawValue) } ?? "")
            if let status = s.navigationalStatus { try e.text(String(status), "navigational status") }
        case .gga(let s):
            try e.time(s.time)
            try e.coordinate(s.coordinate)
            guard (0...9).contains(s.quality.rawValue) else {
                throw e.invalid("fix quality \(s.quality.rawValue) is not one digit")
            }
            e.field(String(s.quality.rawValue))
            if let satellites = s.satellitesInUse {
                guard satellites >= 0 else { throw e.invalid("satellites in use \(satellites) is negative") }
                e.field(pad2(satellites))
            } else {
                e.field("")
            }
            try e.number(s.hdop, NMEAPrecision.dopDecimals, "HDOP", nonNegative: true)
            try e.number(s.altitudeMSL, NMEAPrecision.altitudeDecimals, "altitude")
            e.field(s.altitudeMSL == nil ? "" : "M")
            try e.number(s.geoidSeparation, NMEAPrecision.altitudeDecimals, "geoid separation")
            e.field(s.geoidSeparation == nil ? "" : "M")
            try e.number(s.differentialAge, 1, "differential age", nonNegative: true)
            try e.text(s.differentialStation ?? "", "differential station")
        case .vtg(let s):
            try e.course(s.courseTrue, "true course")
            e.field("T")
            try e.course(s.courseMagnetic, "magnetic course")
            e.field("M")
            try e.number(s.speedKnots, NMEAPrecision.speedDecimals, "speed", nonNegative: true)
            e.field("N")
            try e.number(s.speedKilometersPerHour, NMEAPrecision.speedDecimals, "speed", nonNegative: true)
            e.field("K")
            if let mode = s.mode { e.field(String(mode.rawValue)) }
        case .gsa(let s):
            e.field(s.selection.map { String($0.rawValue) } ?? "")
            e.field(s.fixMode.map { String($0.rawValue) } ?? "")
            guard s.satellites.count <= 12 || s.systemID == nil else {
                throw e.invalid("a GSA with a system ID lists at most 12 satellites, not \(s.satellites.count)")
            }
            for id in s.satellites {
                guard id >= 0, id <= 999 else { throw e.invalid("satellite ID \(id) is outside 0…999") }
                e.field(pad2(id))
            }
            for _ in s.satellites.count..<max(12, s.satellites.count) { e.field("") }
            try e.number(s.pdop, NMEAPrecision.dopDecimals, "PDOP", nonNegative: true)
            try e.number(s.hdop, NMEAPrecision.dopDecimals, "HDOP", nonNegative: true)
            try e.number(s.vdop, NMEAPrecision.dopDecimals, "VDOP", nonNegative: true)
            if let id = s.systemID {
                guard (0...15).contains(id) else { throw e.invalid("system ID \(id) is not one hex digit") }
                e.field(String(id, radix: 16, uppercase: true))
            }
        case .gsv(let s):
            guard (1...9).contains(s.count) else { throw e.invalid("sentence count \(s.count) is outside 1…9") }
            guard (1...s.count).contains(s.number) else {
                throw e.invalid("sentence number \(s.number) is outside 1…\(s.count)")
            }
            guard (0...99).contains(s.satellitesInView) else {
                throw e.invalid("satellites in view \(s.satellitesInView) is outside 0…99")
            }
            guard s.satellites.count <= 4 else { throw e.invalid("a GSV holds at most 4 satellites, not \(s.satellites.count)") }
            e.field(String(s.count))
            e.field(String(s.number))
            e.field(pad2(s.satellitesInView))
            for satellite in s.satellites {
                guard (1...999).contains(satellite.id) else { throw e.invalid("satellite ID \(satellite.id) is outside 1…999") }
                e.field(pad2(satellite.id))
                try e.integer(satellite.elevation, 0...90, digits: 2, "elevation")
                try e.integer(satellite.azimuth, 0...359, digits: 3, "azimuth")
                try e.integer(satellite.signal, 0...99, digits: 2, "signal-to-noise ratio")
            }
            if let id = s.signalID {
                guard (0...15).contains(id) else { throw e.invalid("signal ID \(id) is not one hex digit") }
                e.field(String(id, radix: 16, uppercase: true))
            }
        case .dtm(let s):
            try e.text(s.localDatum ?? "", "local datum")
            try e.text(s.subdivision ?? "", "datum subdivision")
            try e.signed(s.latitudeOffset, NMEAPrecision.datumOffsetDecimals, "latitude offset", positive: "N", negative: "S")
            try e.signed(s.longitudeOffset, NMEAPrecision.datumOffsetDecimals, "longitude offset", positive: "E", negative: "W")
            try e.number(s.altitudeOffset, NMEAPrecision.altitudeDecimals, "altitude offset")
            try e.text(s.referenceDatum ?? "", "reference datum")
        }
        return e.finish()
    }
}

/// Builds one sentence's text and its checksum.
struct SentenceEncoder {
    private var out: String
    private let address: String
    private var fieldIndex = 0

    init(talker: NMEATalker, type: NMEASentenceType) {
        address = talker.rawValue + type.rawValue
        out = "$" + address
        out.reserveCapacity(96)
    }

    func invalid(_ message: String) -> NMEAError {
        NMEAError(.invalidValue, message: message, field: fieldIndex + 1, sentence: out)
    }

    mutating func field(_ text: String) {
        out += ","
        out += text
        fieldIndex += 1
    }

    mutating func text(_ text: String, _ name: String) throws(NMEAError) {
        guard text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x2C && $0 != 0x2A && $0 != 0x24 && $0 != 0x21 })
        else { throw invalid("\(name) '\(text)' may hold only printable ASCII other than , * $ !") }
        field(text)
    }

    /// A fixed-point number; `nil` writes an empty field.
    mutating func number(_ value: Double?, _ decimals: Int, _ name: String, nonNegative: Bool = false) throws(NMEAError) {
        guard let value else { return field("") }
        guard value.isFinite else { throw invalid("\(name) \(value) is not finite") }
        guard !nonNegative || value >= 0 else { throw invalid("\(name) \(value) is negative") }
        guard abs(value) < 1e12 else { throw invalid("\(name) \(value) is too large") }
        field(Self.fixed(value, decimals))
    }

    /// `|value|` and the letter for its sign (`positive` for zero); `nil` writes two empty fields.
    mutating func signed(_ value: Double?, _ decimals: Int, _ name: String, positive: String, negative: String) throws(NMEAError) {
        guard let value else {
            field("")
            return field("")
        }
        try number(abs(value), decimals, name)
        field(value < 0 ? negative : positive)
    }

    /// A whole number in `range` with at least `digits` digits; `nil` writes an empty field.
    mutating func integer(_ value: Int?, _ range: ClosedRange<Int>, digits: Int, _ name: String) throws(NMEAError) {
        guard let value else { return field("") }
        guard range.contains(value) else { throw invalid("\(name) \(value) is outside \(range.lowerBound)…\(range.upperBound)") }
        field(pad(value, digits))
    }

    /// A course in degrees, 0…360; a value that rounds to 360 is written as 0.
    mutating func course(_ value: Double?, _ name: String) throws(NMEAError) {
        guard let value else { return field("") }
        guard value.isFinite, value >= 0, value <= 360 else { throw invalid("\(name) \(value) is outside 0…360") }
        let scale = powersOfTen[NMEAPrecision.courseDecimals]
        let rounded = (value * scale).rounded() / scale
        field(Self.fixed(rounded >= 360 ? 0 : rounded, NMEAPrecision.courseDecimals))
    }

    mutating func time(_ time: NMEATimeOfDay?) throws(NMEAError) {
        guard let time else { return field("") }
        let centis = Int64((time.secondsSinceMidnight * 100).rounded())
        var text: String
        if time.secondsSinceMidnight >= 86_400 {
            let leap = centis - 8_640_000
            guard leap < 100 else { throw invalid("time of day \(time) rounds past the leap second") }
            text = "235960." + pad(Int(leap), 2)
        } else {
            guard centis < 8_640_000 else {
                throw invalid("time of day \(time) rounds to 24:00:00.00; round the date and time together")
            }
            let seconds = Int(centis / 100)
            text = pad2(seconds / 3600) + pad2(seconds / 60 % 60) + pad2(seconds % 60) + "." + pad(Int(centis % 100), 2)
        }
        field(text)
    }

    mutating func date(_ date: NMEADate?) throws(NMEAError) {
        guard let date else { return field("") }
        guard NMEADate.writableYears.contains(date.year) else {
            throw invalid("year \(date.year) is outside 1980…2079, which RMC's two-digit year can say")
        }
        field(pad2(date.day) + pad2(date.month) + pad2(date.year % 100))
    }

    /// Latitude, N/S, longitude, E/W as `ddmm.mmmmm` and `dddmm.mmmmm`.
    mutating func coordinate(_ coordinate: Coordinate?) throws(NMEAError) {
        guard let coordinate else {
            for _ in 0..<4 { field("") }
            return
        }
        field(Self.angle(coordinate.latitude, degreeDigits: 2))
        field(coordinate.latitude < 0 ? "S" : "N")
        field(Self.angle(coordinate.longitude, degreeDigits: 3))
        field(coordinate.longitude < 0 ? "W" : "E")
    }

    mutating func finish() -> String {
        var sum: UInt8 = 0
        for byte in out.utf8.dropFirst() { sum ^= byte }
        out += "*"
        out += sum.hexDigits()
        return out
    }

    /// `|degrees|` as degrees and minutes with ``NMEAPrecision/minuteDecimals`` decimals, rounded
    /// once in integer units so that 59.999995′ carries into the next degree.
    static func angle(_ degrees: Double, degreeDigits: Int) -> String {
        let decimals = NMEAPrecision.minuteDecimals
        let unitsPerMinute = Int64(powersOfTen[decimals])
        let unitsPerDegree = 60 * unitsPerMinute
        let total = Int64((abs(degrees) * 60 * powersOfTen[decimals]).rounded())
        let whole = total / unitsPerDegree
        let minuteUnits = total % unitsPerDegree
        return pad(Int(whole), degreeDigits) + pad2(Int(minuteUnits / unitsPerMinute)) + "."
            + pad(Int(minuteUnits % unitsPerMinute), decimals)
    }

    /// `value` rounded to `decimals` places, without exponent notation.
    static func fixed(_ value: Double, _ decimals: Int) -> String { DecimalText.fixed(value, decimals: decimals) }
}
