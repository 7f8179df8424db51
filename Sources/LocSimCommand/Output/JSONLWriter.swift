import LocationCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A record of the command's JSON output, written member by member in its schema's order.
protocol JSONLRecord {
    /// The record's members, in order (``JSONLSchema``).
    static var schema: JSONLRecordSchema { get }
    /// Writes the values of ``schema``'s members, in order, `type` excepted.
    func write(to writer: inout JSONLWriter)
}

extension JSONLRecord {
    /// The record as one line of compact JSON (no newline).
    var line: String {
        var writer = JSONLWriter(Self.schema)
        write(to: &writer)
        return writer.finish()
    }
}

/// Writes one object of a ``JSONLRecordSchema`` as compact, deterministic JSON: the same values
/// give the same bytes.
///
/// The keys are the schema's: each call writes the value of the next member (`type` is written
/// at the start), so the order is the schema's by construction. A member the schema marks
/// optional is left out when its value is `nil` (or ``skip()``), a nullable one is written as
/// `null`. Numbers are rounded to the member's ``JSONLField/decimals``; a whole number below 10¹⁵
/// is written without a fraction (`800`, not `800.0`), others as the shortest text that reads back
/// as the same `Double`; not-finite values are `null`. Debug builds check each call against the
/// schema (kind, presence, count); release builds only write.
struct JSONLWriter {
    private(set) var text: String
    private let schema: JSONLRecordSchema
    private var next: Int
    private var wroteMember: Bool
    /// (member, value as a person reads it), when ``init(rowsOf:)`` asked for them.
    private(set) var rows: [(name: String, value: String)]?

    init(_ schema: JSONLRecordSchema, reservingCapacity capacity: Int = 160) {
        self.schema = schema
        text = ""
        text.reserveCapacity(capacity)
        text += schema.opening
        let typed = schema.type != nil
        next = typed ? 1 : 0
        wroteMember = typed
        rows = nil
    }

    /// A writer that also collects each member's value as text for people (the HTML report's
    /// summary table): strings as they are, `null` as `–`, an object as `key value, …`.
    init(rowsOf schema: JSONLRecordSchema) {
        self.init(schema)
        rows = []
    }

    /// The finished object, `}` appended. Optional members not reached are absent.
    mutating func finish() -> String {
        while next < schema.fields.count {
            assert(schema.fields[next].mayBeAbsent, "\(schema.name): member \(schema.fields[next].name) not written")
            next += 1
        }
        text += "}"
        return text
    }

    // MARK: Values

    mutating func string(_ value: String) {
        key(.string)
        JSONText.appendQuoted(value, to: &text)
        if rows != nil { rows!.append((lastName, value)) }
    }

    mutating func string(_ value: String?) {
        guard let value else { return absent() }
        string(value)
    }

    /// A UTC time with milliseconds, `2024-11-07T18:00:00.000Z`.
    mutating func timestamp(_ value: Date) {
        key(.timestamp)
        let stamp = UTCTimestamp.format(value, fractionDigits: 3)
        text += "\""
        text += stamp
        text += "\""
        if rows != nil { rows!.append((lastName, stamp)) }
    }

    mutating func timestamp(_ value: Date?) {
        guard let value else { return absent() }
        timestamp(value)
    }

    mutating func integer(_ value: Int) {
        key(.integer)
        text += String(value)
        if rows != nil { rows!.append((lastName, String(value))) }
    }

    mutating func integer(_ value: Int?) {
        guard let value else { return absent() }
        integer(value)
    }

    /// A number, rounded to the member's decimals.
    mutating func number(_ value: Double) {
        let decimals = schema.fields[next].decimals
        key(.number)
        Self.appendNumber(value, decimals: decimals, to: &text)
        if rows != nil { rows!.append((lastName, Self.numberText(value, decimals: decimals))) }
    }

    mutating func number(_ value: Double?) {
        guard let value else { return absent() }
        number(value)
    }

    mutating func strings(_ values: [String]) {
        key(.strings)
        text += "["
        for (i, value) in values.enumerated() {
            if i > 0 { text += "," }
            JSONText.appendQuoted(value, to: &text)
        }
        text += "]"
        if rows != nil { rows!.append((lastName, values.joined(separator: ", "))) }
    }

    mutating func integers(_ values: [Int]) {
        key(.integers)
        text += "["
        for (i, value) in values.enumerated() {
            if i > 0 { text += "," }
            text += String(value)
        }
        text += "]"
        if rows != nil { rows!.append((lastName, values.map(String.init).joined(separator: ", "))) }
    }

    /// An object of the member's record, its members written by `body`.
    mutating func object(_ body: (inout JSONLWriter) -> Void) {
        let field = schema.fields[next]
        guard case .object(let name) = field.kind, let nested = JSONLSchema.record(named: name) else {
            preconditionFailure("\(schema.name).\(field.name) is not an object member")
        }
        key(field.kind)
        var writer = JSONLWriter(nested, reservingCapacity: 64)
        if rows != nil { writer.rows = [] }
        body(&writer)
        text += writer.finish()
        if let nestedRows = writer.rows, rows != nil {
            rows!.append((field.name, nestedRows.map { "\($0.name) \($0.value)" }.joined(separator: ", ")))
        }
    }

    /// An object of the member's record when `present`, else `null` or nothing.
    mutating func object(if present: Bool, _ body: (inout JSONLWriter) -> Void) {
        guard present else { return absent() }
        object(body)
    }

    /// An array of objects of the member's record, one per element, written by `body`.
    mutating func objects<Elements: Sequence>(_ elements: Elements, _ body: (inout JSONLWriter, Elements.Element) -> Void) {
        let field = schema.fields[next]
        guard case .objects(let name) = field.kind, let nested = JSONLSchema.record(named: name) else {
            preconditionFailure("\(schema.name).\(field.name) is not an array of objects")
        }
        key(field.kind)
        text += "["
        var first = true
        for element in elements {
            if !first { text += "," }
            first = false
            var writer = JSONLWriter(nested, reservingCapacity: 128)
            body(&writer, element)
            text += writer.finish()
        }
        text += "]"
        assert(rows == nil, "arrays of objects have no summary rows")
    }

    /// No value for the next member: `null` when the schema says it may be null, left out when it
    /// says the member may be absent.
    mutating func absent() {
        if schema.fields[next].mayBeAbsent {
            next += 1
            return
        }
        assert(schema.fields[next].isNullable, "\(schema.name).\(schema.fields[next].name) is never null")
        key(schema.fields[next].kind)
        text += "null"
        if rows != nil { rows!.append((lastName, "–")) }
    }

    /// Leaves out the next member, which the schema marks optional.
    mutating func skip() {
        assert(schema.fields[next].mayBeAbsent, "\(schema.name).\(schema.fields[next].name) is always written")
        next += 1
    }

    /// Writes the next member's key (a comma before it when needed). Reads the schema's fields in
    /// place, without copying a field (five strings to retain) per value on the hot fix line.
    @inline(__always)
    private mutating func key(_ kind: JSONLField.Kind) {
        assert(next < schema.fields.count, "\(schema.name): more members than the schema lists")
        assert(schema.fields[next].kind == kind, "\(schema.name).\(schema.fields[next].name) is \(schema.fields[next].kind), written as \(kind)")
        text += wroteMember ? schema.fields[next].continuedKey : schema.fields[next].key
        next += 1
        wroteMember = true
    }

    /// The name of the member just written (for ``rows``).
    private var lastName: String { schema.fields[next - 1].name }

    // MARK: Numbers

    /// Appends `value` as a JSON number: rounded to `decimals` when given; a whole number below
    /// 10¹⁵ without a fraction; otherwise Swift's shortest round-trip text; `null` if not finite.
    static func appendNumber(_ value: Double, decimals: Int?, to out: inout String) {
        var value = value
        if let decimals {
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            value = (value * scale).rounded() / scale
        }
        if !value.isFinite {
            out += "null"
        } else if value == value.rounded(), abs(value) < 1e15 {
            out += String(Int64(value))
        } else {
            out += String(value)
        }
    }

    /// `value` as ``appendNumber(_:decimals:to:)`` writes it.
    static func numberText(_ value: Double, decimals: Int?) -> String {
        var out = ""
        appendNumber(value, decimals: decimals, to: &out)
        return out
    }
}
