internal import LocationCore

extension NMEASentence {
    /// Parses one sentence such as `$GPRMC,…*hh`.
    ///
    /// Leading and trailing whitespace (including the CR LF line ending) is ignored.
    ///
    /// - Parameters:
    ///   - text: one sentence, starting with `$`.
    ///   - requiresChecksum: when `true` (the default) a sentence without `*hh` is an error;
    ///     when `false` it is accepted unchecked. A checksum that is present is always verified.
    /// - Throws: ``NMEAError`` with line 1, the field index and the column; codes
    ///   ``NMEAError/Code/badChecksum``, ``NMEAError/Code/missingChecksum``,
    ///   ``NMEAError/Code/truncated``, ``NMEAError/Code/malformedField``,
    ///   ``NMEAError/Code/missingField``, ``NMEAError/Code/wrongFieldCount``,
    ///   ``NMEAError/Code/unsupportedSentence`` or ``NMEAError/Code/unexpectedBytes``.
    public init(parsing text: some StringProtocol, requiresChecksum: Bool = true) throws(NMEAError) {
        var copy = String(text)
        let result: Result<NMEASentence, NMEAError> = copy.withUTF8 { all in
            var start = 0
            var end = all.count
            while start < end, all[start].isASCIIBlank { start += 1 }
            while end > start, all[end - 1] == 0x0D || all[end - 1] == 0x0A || all[end - 1] == 0x20 { end -= 1 }
            let bytes = UnsafeBufferPointer(rebasing: all[start..<end])
            guard let first = bytes.first, first == UInt8(ascii: "$") || first == UInt8(ascii: "!") else {
                return .failure(
                    NMEAError(
                        .unexpectedBytes, message: "a sentence starts with '$'", line: 1, column: start + 1,
                        sentence: NMEAError.excerpt(bytes)))
            }
            var fields: [Range<Int>] = []
            do throws(NMEAError) {
                let sentence = try SentenceParser.parse(
                    bytes, cutShort: false, requiresChecksum: requiresChecksum, fields: &fields)
                return .success(sentence)
            } catch {
                return .failure(error.located(source: nil, line: 1, columnOffset: start))
            }
        }
        self = try result.get()
    }
}

/// Decodes one sentence held in a byte buffer. Columns in its errors are 1-based offsets into
/// that buffer; the reader shifts them to line columns.
enum SentenceParser {
    static let dollar = UInt8(ascii: "$")
    static let bang = UInt8(ascii: "!")
    static let star = UInt8(ascii: "*")
    static let comma = UInt8(ascii: ",")

    /// - Parameters:
    ///   - s: the sentence, from its `$` to its last non-blank byte.
    ///   - cutShort: the input ended inside this sentence, or another sentence began on its line.
    ///   - fields: reusable storage for the field ranges.
    static func parse(
        _ s: UnsafeBufferPointer<UInt8>, cutShort: Bool, requiresChecksum: Bool, fields: inout [Range<Int>]
    ) throws(NMEAError) -> NMEASentence {
        func fail(_ code: NMEAError.Code, _ message: String, column: Int? = nil, field: Int? = nil) -> NMEAError {
            NMEAError(code, message: message, column: column, field: field, sentence: NMEAError.excerpt(s))
        }

        // Checksum.
        var bodyEnd = s.count
        if let starIndex = s.firstIndex(of: star) {
            bodyEnd = starIndex
            let digits = s.count - starIndex - 1
            if digits < 2 {
                throw fail(.truncated, "the checksum after '*' has \(digits) of 2 hex digits", column: starIndex + 1)
            }
            guard let high = s[starIndex + 1].hexDigitValue, let low = s[starIndex + 2].hexDigitValue else {
                throw fail(
                    .badChecksum, "the checksum after '*' is not two hex digits", column: starIndex + 2)
            }
            if digits > 2 {
                throw fail(
                    .unexpectedBytes, "\(digits - 2) byte(s) after the checksum", column: starIndex + 4)
            }
            var sum: UInt8 = 0
            for i in 1..<starIndex { sum ^= s[i] }
            let expected = high << 4 | low
            guard sum == expected else {
                throw fail(
                    .badChecksum, "checksum *\(expected.hexDigits()) does not match the computed \(sum.hexDigits())",
                    column: starIndex + 1)
            }
        } else if cutShort {
            throw fail(.truncated, "the sentence ends before its '*hh' checksum", column: s.count + 1)
        } else if requiresChecksum {
            throw fail(.missingChecksum, "no '*hh' checksum at the end of the line", column: s.count + 1)
        }

        // Fields: fields[0] is the address, fields[k] the k-th data field.
        fields.removeAll(keepingCapacity: true)
        var fieldStart = 1
        for i in 1..<bodyEnd where s[i] == comma {
            fields.append(fieldStart..<i)
            fieldStart = i + 1
        }
        fields.append(fieldStart..<bodyEnd)

        let address = fields[0]
        guard s[0] == dollar else {
            throw fail(.unsupportedSentence, "encapsulated ('!') sentences are not decoded", column: 1, field: 0)
        }
        if address.count >= 1, s[address.lowerBound] == UInt8(ascii: "P") {
            throw fail(.unsupportedSentence, "proprietary sentence", column: 2, field: 0)
        }
        guard address.count == 5, address.allSatisfy({ isUpperAlphanumeric(s[$0]) }) else {
            throw fail(
                .malformedField, "the address must be a 2-letter talker and a 3-letter type", column: 2, field: 0)
        }
        guard isUpper(s[1]), isUpper(s[2]) else {
            throw fail(.malformedField, "the talker must be two upper-case letters", column: 2, field: 0)
        }
        let talker = NMEATalker(unchecked: string(s, 1..<3))
        let type = (s[3], s[4], s[5])
        let f = Fields(s: s, ranges: fields)
        switch type {
        case (0x52, 0x4D, 0x43):  // RMC
            return .rmc(try f.rmc(talker))
        case (0x47, 0x47, 0x41):  // GGA
            return .gga(try f.gga(talker))
        case (0x56, 0x54, 0x47):  // VTG
            return .vtg(try f.vtg(talker))
        case (0x47, 0x53, 0x41):  // GSA
            return .gsa(try f.gsa(talker))
        case (0x47, 0x53, 0x56):  // GSV
            return .gsv(try f.gsv(talker))
        case (0x44, 0x54, 0x4D):  // DTM
            return .dtm(try f.dtm(talker))
        default:
            throw fail(.unsupportedSentence, "\(string(s, 3..<6)) sentences are not decoded", column: 4, field: 0)
        }
    }


    @inline(__always) static func isUpper(_ c: UInt8) -> Bool { c >= 0x41 && c <= 0x5A }
    @inline(__always) static func isUpperAlphanumeric(_ c: UInt8) -> Bool { isUpper(c) || (c >= 0x30 && c <= 0x39) }

    static func string(_ s: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: s[range]), as: UTF8.self)
    }
}

/// Typed access to the data fields of one sentence, throwing located errors.
private struct Fields {
    let s: UnsafeBufferPointer<UInt8>
    let ranges: [Range<Int>]

    /// Number of data fields (after the address).
    var count: Int { ranges.count - 1 }

    func fail(_ code: NMEAError.Code, _ index: Int, _ message: String) -> NMEAError {
        let column = index < ranges.count ? ranges[index].lowerBound + 1 : nil
        return NMEAError(
            code, message: message, column: column, field: index, sentence: NMEAError.excerpt(s))
    }

    func expectCount(_ allowed: ClosedRange<Int>, _ type: String) throws(NMEAError) {
        guard allowed.contains(count) else {
            let expected = allowed.count == 1 ? "\(allowed.lowerBound)" : "\(allowed.lowerBound)…\(allowed.upperBound)"
            throw NMEAError(
                .wrongFieldCount, message: "\(type) has \(count) fields; expected \(expected)",
                sentence: NMEAError.excerpt(s))
        }
    }

    func isEmpty(_ i: Int) -> Bool { ranges[i].isEmpty }

    func text(_ i: Int) -> String { SentenceParser.string(s, ranges[i]) }

    /// One character, or `nil` when empty.
    func character(_ i: Int, _ name: String) throws(NMEAError) -> UInt8? {
        let r = ranges[i]
        if r.isEmpty { return nil }
        guard r.count == 1 else { throw fail(.malformedField, i, "\(name) '\(text(i))' must be one letter") }
        return s[r.lowerBound]
    }

    /// A decimal number `[+-]digits[.digits]` (no exponent), `nil` when the field is empty.
    ///
    /// The first 18 significant digits are kept exactly (`significand` × 10^`exponent`, with
    /// `exponent` ≤ 0 the minus count of kept decimals); later decimals are cut, but a cut integer
    /// digit is an error. `value` is correctly rounded from every digit.
    @inline(__always) func decimal(_ i: Int, _ name: String) throws(NMEAError) -> DecimalNumber? {
        let r = ranges[i]
        if r.isEmpty { return nil }
        guard let d = DecimalNumber(parsing: UnsafeBufferPointer(rebasing: s[r]), keepingDigits: 18, allowsExponent: false)
        else {
            throw fail(.malformedField, i, "\(name) '\(text(i))' is not a number")
        }
        guard d.exponent <= 0 else { throw fail(.malformedField, i, "\(name) '\(text(i))' is too large") }
        return d
    }

    func double(_ i: Int, _ name: String) throws(NMEAError) -> Double? {
        guard let d = try decimal(i, name) else { return nil }
        // Leading zeros after the point count towards the decimals but not the 18 digits kept.
        guard -d.exponent < powersOfTen.count else {
            throw fail(.malformedField, i, "\(name) '\(text(i))' has more than \(powersOfTen.count - 1) decimals")
        }
        return d.value
    }

    func nonNegative(_ i: Int, _ name: String) throws(NMEAError) -> Double? {
        guard let value = try double(i, name) else { return nil }
        guard value >= 0 else { throw fail(.malformedField, i, "\(name) \(text(i)) is negative") }
        return value
    }

    /// A course in degrees, 0…360 (360 is read as 0).
    func course(_ i: Int, _ name: String) throws(NMEAError) -> Double? {
        guard let value = try double(i, name) else { return nil }
        guard value >= 0, value <= 360 else { throw fail(.malformedField, i, "\(name) \(text(i)) is outside 0…360") }
        return value == 360 ? 0 : value
    }

    func integer(_ i: Int, _ name: String) throws(NMEAError) -> Int? {
        let r = ranges[i]
        if r.isEmpty { return nil }
        guard r.count <= 9 else { throw fail(.malformedField, i, "\(name) '\(text(i))' is too long") }
        var value = 0
        for j in r {
            let d = Int(s[j]) &- 48
            guard d >= 0, d <= 9 else { throw fail(.malformedField, i, "\(name) '\(text(i))' is not an integer") }
            value = value * 10 + d
        }
        return value
    }

    /// A unit letter field that must be `expected` whenever it is not empty.
    func unit(_ i: Int, _ expected: Character, _ name: String) throws(NMEAError) {
        let r = ranges[i]
        if r.isEmpty { return }
        guard r.count == 1, Character(Unicode.Scalar(s[r.lowerBound])) == expected else {
            throw fail(.malformedField, i, "\(name) unit '\(text(i))' must be '\(expected)'")
        }
    }

    /// Three two-digit numbers from six digits at `start` (`hhmmss`, `ddmmyy`).
    func sixDigits(_ start: Int) -> (Int, Int, Int)? {
        var values = (0, 0, 0)
        for k in 0..<6 {
            let d = Int(s[start + k]) &- 48
            guard d >= 0, d <= 9 else { return nil }
            switch k / 2 {
            case 0: values.0 = values.0 * 10 + d
            case 1: values.1 = values.1 * 10 + d
            default: values.2 = values.2 * 10 + d
            }
        }
        return values
    }

    /// `hhmmss[.s…]`.
    func time(_ i: Int) throws(NMEAError) -> NMEATimeOfDay? {
        let r = ranges[i]
        if r.isEmpty { return nil }
        guard r.count >= 6, let parts = sixDigits(r.lowerBound) else {
            throw fail(.malformedField, i, "time '\(text(i))' must be hhmmss[.ss]")
        }
        var fraction = 0.0
        if r.count > 6 {
            guard s[r.lowerBound + 6] == UInt8(ascii: "."), r.count > 7 else {
                throw fail(.malformedField, i, "time '\(text(i))' must be hhmmss[.ss]")
            }
            var mantissa: Int64 = 0
            var scale = 0
            for j in (r.lowerBound + 7)..<r.upperBound {
                let d = Int64(s[j]) &- 48
                guard d >= 0, d <= 9 else { throw fail(.malformedField, i, "time '\(text(i))' must be hhmmss[.ss]") }
                if scale < 15 {
                    mantissa = mantissa * 10 + d
                    scale += 1
                }
            }
            fraction = Double(mantissa) / powersOfTen[scale]
        }
        guard let time = NMEATimeOfDay(hour: parts.0, minute: parts.1, second: Double(parts.2) + fraction) else {
            throw fail(.malformedField, i, "time '\(text(i))' is not a valid time of day")
        }
        return time
    }

    /// `ddmmyy`.
    func date(_ i: Int) throws(NMEAError) -> NMEADate? {
        let r = ranges[i]
        if r.isEmpty { return nil }
        guard r.count == 6, let parts = sixDigits(r.lowerBound) else {
            throw fail(.malformedField, i, "date '\(text(i))' must be ddmmyy")
        }
        let year = parts.2 >= 80 ? 1900 + parts.2 : 2000 + parts.2
        guard let date = NMEADate(year: year, month: parts.1, day: parts.0) else {
            throw fail(.malformedField, i, "date '\(text(i))' is not a valid date")
        }
        return date
    }

    /// `ddmm.mmm…` (or `dddmm.mmm…`) in field `i` with its hemisphere letter in field `i + 1`,
    /// returned in signed degrees.
    func angle(_ i: Int, isLatitude: Bool) throws(NMEAError) -> Double? {
        let name = isLatitude ? "latitude" : "longitude"
        let valueEmpty = isEmpty(i)
        let hemisphere = try character(i + 1, "\(name) hemisphere")
        if valueEmpty {
            // A hemisphere letter with no value is harmless (some receivers send it); ignore it.
            return nil
        }
        guard let hemisphere else { throw fail(.missingField, i + 1, "\(name) has no hemisphere letter") }
        let negative: Bool
        switch (isLatitude, hemisphere) {
        case (true, UInt8(ascii: "N")), (false, UInt8(ascii: "E")): negative = false
        case (true, UInt8(ascii: "S")), (false, UInt8(ascii: "W")): negative = true
        default:
            throw fail(.malformedField, i + 1, "\(name) hemisphere '\(text(i + 1))' must be \(isLatitude ? "N or S" : "E or W")")
        }
        guard let d = try decimal(i, name), !d.isNegative, s[ranges[i].lowerBound] != UInt8(ascii: "+") else {
            throw fail(.malformedField, i, "\(name) '\(text(i))' must be \(isLatitude ? "ddmm.mmmm" : "dddmm.mmmm")")
        }
        let scale = -d.exponent
        guard scale <= 15 else { throw fail(.malformedField, i, "\(name) '\(text(i))' has more than 15 decimals") }
        let unit = Int64(powersOfTen[scale])  // ≤ 10¹⁵, so 100 × unit fits
        let mantissa = Int64(d.significand)  // 18 digits at most
        let degrees = mantissa / (100 * unit)
        let minutesScaled = mantissa % (100 * unit)
        guard minutesScaled < 60 * unit else {
            throw fail(.malformedField, i, "\(name) '\(text(i))' has minutes ≥ 60")
        }
        let value = Double(degrees) + Double(minutesScaled) / (60 * powersOfTen[scale])
        guard value <= (isLatitude ? 90 : 180) else {
            throw fail(.malformedField, i, "\(name) '\(text(i))' is beyond \(isLatitude ? 90 : 180)°")
        }
        return negative ? -value : value
    }

    /// Latitude at `i`, `i+1` and longitude at `i+2`, `i+3`; both or neither.
    func coordinate(_ i: Int) throws(NMEAError) -> Coordinate? {
        let latitude = try angle(i, isLatitude: true)
        let longitude = try angle(i + 2, isLatitude: false)
        switch (latitude, longitude) {
        case (nil, nil): return nil
        case (let lat?, let lon?):
            do {
                return try Coordinate(latitude: lat, longitude: lon)
            } catch {
                throw fail(.malformedField, error.component == .latitude ? i : i + 2, error.description)
            }
        case (nil, _): throw fail(.missingField, i, "longitude without latitude")
        case (_, nil): throw fail(.missingField, i + 2, "latitude without longitude")
        }
    }

    func mode(_ i: Int) throws(NMEAError) -> NMEAModeIndicator? {
        guard let c = try character(i, "mode indicator") else { return nil }
        guard let mode = NMEAModeIndicator(rawValue: Character(Unicode.Scalar(c))) else {
            throw fail(.malformedField, i, "mode indicator '\(text(i))' is not one of A D E F M N P R S")
        }
        return mode
    }

    // MARK: Sentences

    // $--RMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,x.x,x.x,ddmmyy,x.x,a[,m[,s]]*hh
    func rmc(_ talker: NMEATalker) throws(NMEAError) -> NMEASentence.RMC {
        try expectCount(11...13, "RMC")
        let time = try time(1)
        let isActive: Bool
        switch try character(2, "status") {
        case UInt8(ascii: "A"): isActive = true
        case UInt8(ascii: "V"): isActive = false
        case nil: throw fail(.missingField, 2, "status is empty; expected A or V")
        default: throw fail(.malformedField, 2, "status '\(text(2))' must be A or V")
        }
        let coordinate = try coordinate(3)
        let speed = try nonNegative(7, "speed")
        let course = try course(8, "course")
        let date = try date(9)
        let variationValue = try double(10, "magnetic variation")
        var variation: Double?
        var mode = count >= 12 ? try mode(12) : nil
        switch try character(11, "variation direction") {
        case UInt8(ascii: "W"): variation = variationValue.map { -$0 }
        case UInt8(ascii: "E"): variation = variationValue
        case nil: variation = nil  // a variation without its direction says nothing
        case let letter?:
            // Quirk (Motorola T805 and others): an 11-field RMC that skips the variation
            // direction and puts the NMEA 2.3 mode letter in its place: `…,181207,0,A*77`.
            guard count == 11, let quirkMode = NMEAModeIndicator(rawValue: Character(Unicode.Scalar(letter))) else {
                throw fail(.malformedField, 11, "variation direction '\(text(11))' must be E or W")
            }
            mode = quirkMode
            variation = nil
        }
        let status = count >= 13 ? try character(13, "navigational status").map { Character(Unicode.Scalar($0)) } : nil
        return NMEASentence.RMC(
            talker: talker, time: time, isActive: isActive, coordinate: coordinate, speedKnots: speed,
            courseTrue: course, date: date, magneticVariation: variation, mode: mode, navigationalStatus: status)
    }

    // $--GGA,hhmmss.ss,llll.ll,a,yyyyy.yy,a,q,nn,x.x,x.x,M,x.x,M,x.x,xxxx*hh
    func gga(_ talker: NMEATalker) throws(NMEAError) -> NMEASentence.GGA {
        try expectCount(14...14, "GGA")
        let time = try time(1)
        let coordinate = try coordinate(2)
        guard let quality = try integer(6, "fix quality") else {
            throw fail(.missingField, 6, "fix quality is empty")
        }
        guard quality <= 9 else { throw fail(.malformedField, 6, "fix quality '\(text(6))' must be one digit") }
        let satellites = try integer(7, "satellites in use")
        let hdop = try nonNegative(8, "HDOP")
        let altitude = try double(9, "altitude")
        try unit(10, "M", "altitude")
        let separation = try double(11, "geoid separation")
        try unit(12, "M", "geoid separation")
        let age = try nonNegative(13, "differential age")
        let station = isEmpty(14) ? nil : text(14)
        return NMEASentence.GGA(
            talker: talker, time: time, coordinate: coordinate, quality: NMEAFixQuality(rawValue: quality),
            satellitesInUse: satellites, hdop: hdop, altitudeMSL: altitude, geoidSeparation: separation,
            differentialAge: age, differentialStation: station)
    }

    // $--VTG,x.x,T,x.x,M,x.x,N,x.x,K[,m]*hh
    func vtg(_ talker: NMEATalker) throws(NMEAError) -> NMEASentence.VTG {
        try expectCount(8...9, "VTG")
        let courseTrue = try course(1, "true course")
        try unit(2, "T", "true course")
        let courseMagnetic = try course(3, "magnetic course")
        try unit(4, "M", "magnetic course")
        let knots = try nonNegative(5, "speed")
        try unit(6, "N", "speed in knots")
        let kmh = try nonNegative(7, "speed")
        try unit(8, "K", "speed in km/h")
        let mode = count >= 9 ? try mode(9) : nil
        return NMEASentence.VTG(
            talker: talker, courseTrue: courseTrue, courseMagnetic: courseMagnetic, speedKnots: knots,
            speedKilometersPerHour: kmh, mode: mode)
    }

    // $--GSA,a,x,xx,xx,xx,xx,xx,xx,xx,xx,xx,xx,xx,xx,x.x,x.x,x.x[,h]*hh
    func gsa(_ talker: NMEATalker) throws(NMEAError) -> NMEASentence.GSA {
        guard count >= 17 else {
            throw NMEAError(
                .wrongFieldCount, message: "GSA has \(count) fields; expected 17, 18, or more with over 12 satellites",
                sentence: NMEAError.excerpt(s))
        }
        let selection: NMEASentence.GSA.Selection?
        switch try character(1, "selection mode") {
        case nil: selection = nil
        case UInt8(ascii: "A"): selection = .automatic
        case UInt8(ascii: "M"): selection = .manual
        default: throw fail(.malformedField, 1, "selection mode '\(text(1))' must be A or M")
        }
        let fixMode: FixMode?
        switch try integer(2, "fix type") {
        case nil: fixMode = nil
        case let value?:
            guard let mode = FixMode(rawValue: value) else {
                throw fail(.malformedField, 2, "fix type '\(text(2))' must be 1, 2 or 3")
            }
            fixMode = mode
        }
        // 17 fields: 12 satellite slots. 18: NMEA 4.10 adds the system ID. More: a longer
        // satellite list with the DOPs last.
        let dopStart = count == 18 ? 15 : count - 2
        var satellites: [Int] = []
        for i in 3..<dopStart {
            if let id = try integer(i, "satellite ID") { satellites.append(id) }
        }
        let pdop = try nonNegative(dopStart, "PDOP")
        let hdop = try nonNegative(dopStart + 1, "HDOP")
        let vdop = try nonNegative(dopStart + 2, "VDOP")
        var systemID: Int?
        if count == 18, let c = try character(18, "system ID") {
            guard let value = c.hexDigitValue else {
                throw fail(.malformedField, 18, "system ID '\(text(18))' must be one hex digit")
            }
            systemID = Int(value)
        }
        return NMEASentence.GSA(
            talker: talker, selection: selection, fixMode: fixMode, satellites: satellites, pdop: pdop,
            hdop: hdop, vdop: vdop, systemID: systemID)
    }
}

extension Fields {
    // $--GSV,x,x,xx,xx,xx,xxx,xx,…[,h]*hh: 3 fields, 4 a satellite, NMEA 4.10's signal ID.
    func gsv(_ talker: NMEATalker) throws(NMEAError) -> NMEASentence.GSV {
        let groups = (count - 3) / 4
        let hasSignalID = (count - 3) % 4 == 1
        // Up to 4 satellites by the standard; some receivers put more in one sentence, as gpsd reads.
        guard count >= 3, (count - 3) % 4 == 0 || hasSignalID else {
            throw NMEAError(
                .wrongFieldCount,
                message: "GSV has \(count) fields; expected 3, 4 for each satellite, and perhaps a signal ID",
                sentence: NMEAError.excerpt(s))
        }
        guard let total = try integer(1, "sentence count"), (1...9).contains(total) else {
            throw fail(.malformedField, 1, "sentence count '\(text(1))' must be 1…9")
        }
        guard let number = try integer(2, "sentence number"), (1...total).contains(number) else {
            throw fail(.malformedField, 2, "sentence number '\(text(2))' must be 1…\(total)")
        }
        guard let inView = try integer(3, "satellites in view") else {
            throw fail(.malformedField, 3, "satellites in view is empty")
        }
        var satellites: [NMEASentence.GSV.Satellite] = []
        for group in 0..<groups {
            let i = 4 + 4 * group
            guard let id = try integer(i, "satellite ID") else { continue }
            let elevation = try integer(i + 1, "elevation")
            if let elevation, elevation > 90 { throw fail(.malformedField, i + 1, "elevation \(elevation) is over 90") }
            var azimuth = try integer(i + 2, "azimuth")
            if let value = azimuth {
                guard value <= 360 else { throw fail(.malformedField, i + 2, "azimuth \(value) is over 360") }
                if value == 360 { azimuth = 0 }
            }
            let signal = try integer(i + 3, "signal-to-noise ratio")
            if let signal, signal > 99 { throw fail(.malformedField, i + 3, "signal-to-noise ratio \(signal) is over 99") }
            satellites.append(.init(id: id, elevation: elevation, azimuth: azimuth, signal: signal))
        }
        var signalID: Int?
        if hasSignalID, let c = try character(count, "signal ID") {
            guard let value = c.hexDigitValue else {
                throw fail(.malformedField, count, "signal ID '\(text(count))' must be one hex digit")
            }
            signalID = Int(value)
        }
        return NMEASentence.GSV(
            talker: talker, count: total, number: number, satellitesInView: inView, satellites: satellites,
            signalID: signalID)
    }
}

extension Fields {
    // $--DTM,ccc,a,x.x,a,x.x,a,x.x,ccc*hh; receivers that send fewer fields leave the rest empty.
    func dtm(_ talker: NMEATalker) throws(NMEAError) -> NMEASentence.DTM {
        try expectCount(1...8, "DTM")
        func code(_ i: Int) -> String? { i <= count && !isEmpty(i) ? text(i) : nil }
        /// An offset at `i` signed by its letter at `i + 1`: `positive` adds, `negative` subtracts.
        func offset(_ i: Int, _ name: String, positive: UInt8, negative: UInt8) throws(NMEAError) -> Double? {
            let value = i <= count ? try double(i, name) : nil
            let letter = i + 1 <= count ? try character(i + 1, "\(name) direction") : nil
            guard let value else { return nil }  // a direction with no value says nothing
            switch letter {
            case positive?: return value
            case negative?: return -value
            case nil: throw fail(.missingField, i + 1, "\(name) has no direction letter")
            default:
                let expected = "\(Character(Unicode.Scalar(positive))) or \(Character(Unicode.Scalar(negative)))"
                throw fail(.malformedField, i + 1, "\(name) direction '\(text(i + 1))' must be \(expected)")
            }
        }
        let latitude = try offset(3, "latitude offset", positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S"))
        let longitude = try offset(5, "longitude offset", positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W"))
        let altitude = count >= 7 ? try double(7, "altitude offset") : nil
        return NMEASentence.DTM(
            talker: talker, localDatum: code(1), subdivision: code(2), latitudeOffset: latitude,
            longitudeOffset: longitude, altitudeOffset: altitude, referenceDatum: code(8))
    }
}

/// 10⁰ … 10²², all exact in `Double`.
let powersOfTen: [Double] = (0...22).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
}
