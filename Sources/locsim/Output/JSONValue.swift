import LocationCore

/// A JSON value with keys kept in insertion order, written compactly and deterministically, so
/// the same inputs always give byte-identical output.
enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Compact JSON text.
    var text: String {
        var out = ""
        out.reserveCapacity(160)  // a timeline line, written without regrowing
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .number(let value):
            if !value.isFinite {
                out += "null"
            } else if value == value.rounded(), abs(value) < 1e15 {
                out += String(Int64(value))
            } else {
                out += String(value)
            }
        case .string(let value): JSONText.appendQuoted(value, to: &out)
        case .array(let values):
            out += "["
            for (i, value) in values.enumerated() {
                if i > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                JSONText.appendQuoted(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// A number rounded to `decimals` places (for metres, seconds) without exponent noise.
    static func rounded(_ value: Double, _ decimals: Int) -> JSONValue {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return .number((value * scale).rounded() / scale)
    }
}
