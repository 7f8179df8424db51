import LocationCore
/// A strict check of one gpsd report, made before libgps sees it: the package's JSON reader
/// (``/LocationCore/JSONValue``) and the shape gpsd writes.
///
/// libgps's `gps_unpack` decodes what it can of damaged text without saying so, and in gpsd 3.22
/// loops forever on some of it (a stray byte after a string inside `DEVICES`'s array, found by
/// fuzzing). The reader stops at a nesting depth that gpsd never needs.
enum JSONSyntax {
    /// Deeper than any gpsd report (SKY's satellites are at depth 2).
    static let maximumDepth = 32

    /// What the check found in one report.
    struct Report {
        /// Why the text is not exactly one JSON object (surrounding whitespace aside), or nil.
        var problem: String?
        /// The value of the top-level object's `"class"` member, when it is a string.
        var topLevelClass: String?
        /// Whether `"class"` is the top-level object's first member, as gpsd writes it. libgps
        /// picks the class by the first `"class":` in the text, and gpsd 3.22's `gps_unpack`
        /// hangs on some members placed before it (a long name or value, an array).
        var classComesFirst = false
        /// The longest member name as written, in bytes (libgps keeps 30: JSON_ATTR_MAX).
        var longestName = 0
        /// How many top-level members are named `"class"` (gpsd writes one; gps_unpack hangs on
        /// a second one naming another class).
        var classMembers = 0
        /// How deep containers nest: 1 for a flat object, 2 when a member is an array or object.
        var depth = 0
        /// The text without whitespace outside strings (as gpsd writes it), for libgps; empty
        /// when there is a problem.
        var compact: [UInt8] = []
        /// For a `SKY`: why its shape is not the one gpsd writes (``skyProblem(_:)``), or nil.
        var skyProblem: String?
    }

    /// The members libgps reads from each of `SKY`'s satellites, all numbers but `used`.
    static let satelliteMembers: Set<String> = ["PRN", "el", "az", "ss", "used", "gnssid", "svid", "sigid", "freqid", "health"]

    /// Why a `SKY` is not shaped as gpsd writes it, or nil: every member a number, string or
    /// boolean but `satellites`, an array of at most ``GPSDConnection/maximumSatellites`` flat objects holding
    /// only ``satelliteMembers``, each a number (a whole one in -32768…32767 for the IDs) but
    /// `used`, a boolean. gpsd 3.22's `gps_unpack` never returns on some bad values inside an
    /// array of objects (docs/development/fuzzing.md), so nothing else reaches it.
    static func skyProblem(_ members: [(name: String, value: JSONValue)]) -> String? {
        let maximumSatellites = GPSDConnection.maximumSatellites
        for (name, value) in members where name != "satellites" {
            switch value {
            case .array, .object: return "\"\(name)\" is \(value.text), where gpsd writes a number or a string"
            default: continue
            }
        }
        guard let satellites = members.first(where: { $0.name == "satellites" })?.value else { return nil }
        guard case .array(let list) = satellites else { return "\"satellites\" is \(satellites.text), not an array" }
        guard list.count <= maximumSatellites else { return "\(list.count) satellites; libgps holds \(maximumSatellites)" }
        for (index, satellite) in list.enumerated() {
            guard case .object(let fields) = satellite else { return "satellite \(index + 1) is \(satellite.text), not an object" }
            for (name, value) in fields {
                guard satelliteMembers.contains(name) else { return "satellite \(index + 1) has \"\(name)\", which libgps does not read" }
                switch (name, value) {
                case ("used", .bool): continue
                case ("el", .number), ("az", .number), ("ss", .number): continue
                case (_, .number(let number)) where name != "used" && number.rounded() == number && abs(number) <= 32767: continue
                default: return "satellite \(index + 1)'s \"\(name)\" is \(value.text)"
                }
            }
        }
        return nil
    }

    static func check(_ text: String) -> Report {
        var report = Report()
        let bytes = Array(text.utf8)
        let members: [(name: String, value: JSONValue)]
        do {
            guard case .object(let read) = try JSONValue(parsing: bytes, maximumDepth: maximumDepth, allowsRepeatedNames: true) else {
                report.problem = "not a JSON object"
                return report
            }
            members = read
        } catch {
            report.problem = error.description
            return report
        }
        report.topLevelClass = members.lazy.compactMap { $0.name == "class" ? $0.value.string : nil }.first
        report.classComesFirst = members.first?.name == "class"
        report.classMembers = members.count { $0.name == "class" }
        if report.topLevelClass == "SKY" { report.skyProblem = skyProblem(members) }
        var escapedName = false
        (report.compact, report.longestName, report.depth, escapedName) = compacted(bytes)
        // gpsd never escapes a name, and libgps compares names as written.
        if escapedName { report.problem = "an escape in a member name" }
        return report
    }

    /// Why `text` is not exactly one JSON object (surrounding whitespace aside), or nil when it is.
    static func problem(inObject text: String) -> String? {
        check(text).problem
    }

    /// `bytes` (valid JSON) without the whitespace outside strings; the longest member name as
    /// written (a string followed by ':'), how deep containers nest, and whether a name holds an
    /// escape.
    static func compacted(_ bytes: [UInt8]) -> (compact: [UInt8], longestName: Int, depth: Int, escapedName: Bool) {
        var (longestName, escapedName, depth, deepest) = (0, false, 0, 0)
        let compact = [UInt8](unsafeUninitializedCapacity: bytes.count) { out, count in
            var strings = JSONStringState()
            var (stringStart, lastString, lastEscaped) = (0, 0, false)
            for byte in bytes {
                let wasInString = strings.inString
                if strings.consume(byte) {
                    if !wasInString {
                        (stringStart, lastEscaped) = (count, false)
                    } else if !strings.inString {
                        lastString = count - stringStart - 1
                    } else if byte == UInt8(ascii: "\\") {
                        lastEscaped = true
                    }
                } else if byte.isASCIIWhitespace {
                    continue
                } else if byte == UInt8(ascii: ":") {
                    longestName = max(longestName, lastString)
                    escapedName = escapedName || lastEscaped
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    depth += 1
                    deepest = max(deepest, depth)
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                }
                out[count] = byte
                count += 1
            }
        }
        return (compact, longestName, deepest, escapedName)
    }
}
