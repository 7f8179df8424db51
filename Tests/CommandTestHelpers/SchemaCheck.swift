import Foundation
import LocSimTestHelpers
package import Testing

/// One record of docs/reference/jsonl.md: its heading, `type` and members in the documented order.
package struct DocumentedRecord: Sendable {
    /// A member's row of the record's table.
    package struct Field: Sendable {
        /// The JSON type of a value.
        package enum Kind: Sendable, Equatable {
            case string, timestamp, integer, number, strings, integers
            /// An object of the named record.
            case object(String)
            /// An array of objects of the named record.
            case objects(String)
        }

        /// When the member is written.
        package enum Presence: Sendable, Equatable {
            case always, nullable, optional
            /// Exactly in the records whose `event` member is one of these.
            case events([String])
        }

        package let name: String
        package let kind: Kind
        package let decimals: Int?
        package let presence: Presence
    }

    /// The heading: the `type` value, or a name for records without one.
    package let name: String
    package let fields: [Field]
    /// The value of the record's first member, `type`; nil for documents and nested objects.
    package var type: String? { fields.first?.name == "type" ? name : nil }
}

/// The records documented in docs/reference/jsonl.md, and checks of JSON lines against them.
package enum SchemaCheck {
    package static let docPath = "docs/reference/jsonl.md"

    /// Every record documented, in the page's order.
    package static let records: [DocumentedRecord] = {
        do {
            return try parse(String(contentsOfFile: PackagePaths.path(docPath), encoding: .utf8))
        } catch {
            Issue.record("cannot read \(docPath): \(error)")
            return []
        }
    }()

    /// The record with `type` (the jsonl lines' first member).
    package static func record(type: String) -> DocumentedRecord? { records.first { $0.type == type } }

    /// The record headed `name` (documents and nested objects).
    package static func record(named name: String) -> DocumentedRecord? { records.first { $0.name == name } }

    /// The records of the page's `## Records` section: a `### \`name\`` heading each, then its table
    /// (`| field | type | unit | decimals | present | meaning |`).
    static func parse(_ text: String) throws -> [DocumentedRecord] {
        struct Malformed: Error, CustomStringConvertible { let description: String }
        var records: [DocumentedRecord] = []
        var name: String?
        var fields: [DocumentedRecord.Field] = []
        func close() {
            if let name { records.append(DocumentedRecord(name: name, fields: fields)) }
            name = nil
            fields = []
        }
        var inRecords = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                close()
                inRecords = line == "## Records"
                continue
            }
            guard inRecords else { continue }
            if line.hasPrefix("### ") {
                close()
                name = String(line.dropFirst(4)).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                continue
            }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 6 else { throw Malformed(description: "\(docPath): a row without six cells: \(line)") }
            var type = cells[1]
            let nullable = type.hasSuffix(" or null")
            if nullable { type = String(type.dropLast(" or null".count)) }
            let kind: DocumentedRecord.Field.Kind
            switch type {
            case "string": kind = .string
            case "string (UTC time)": kind = .timestamp
            case "integer": kind = .integer
            case "number": kind = .number
            case "array of strings": kind = .strings
            case "array of integers": kind = .integers
            case _ where type.hasPrefix("object (`"): kind = .object(String(type.dropFirst("object (`".count).dropLast(2)))
            case _ where type.hasPrefix("array of `"): kind = .objects(String(type.dropFirst("array of `".count).dropLast("` objects".count)))
            default: throw Malformed(description: "\(docPath): unknown type \(type) in \(line)")
            }
            let present = cells[4]
            let presence: DocumentedRecord.Field.Presence
            if present == "always" {
                presence = .always
            } else if present.hasPrefix("always; null when ") {
                presence = .nullable
            } else if present.hasPrefix("when ") {
                presence = .optional
            } else if present.hasPrefix("in "), present.hasSuffix(" events") {
                presence = .events(present.dropFirst(3).dropLast(7).components(separatedBy: ", ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) })
            } else {
                throw Malformed(description: "\(docPath): unknown presence \(present) in \(line)")
            }
            guard nullable == (presence == .nullable) else { throw Malformed(description: "\(docPath): 'or null' without 'null when' in \(line)") }
            fields.append(
                DocumentedRecord.Field(
                    name: cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), kind: kind, decimals: Int(cells[3]),
                    presence: presence))
        }
        close()
        return records
    }

    /// Checks every line of `output` (records found by their `type`, or `record`), and returns the
    /// types seen.
    package static func check(_ output: String, record: DocumentedRecord? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> Set<String>
    {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "the output ends with a newline", sourceLocation: sourceLocation)
        var types = Set<String>()
        var failures = 0
        for line in lines.dropLast() {
            let problems = SchemaCheck.problems(String(line), record: record)
            if !problems.isEmpty, failures < 5 {
                failures += 1
                Issue.record("\(problems.joined(separator: "; ")): \(line)", sourceLocation: sourceLocation)
            }
            if let type = LiveCommand.parse(String(line))?.type { types.insert(type) }
        }
        return types
    }

    /// What is wrong with `line` as the documented record (found by its `type`, or `expected`);
    /// `members` collects `record.member` for every member it holds, nested objects' included.
    package static func problems(_ line: String, record expected: DocumentedRecord? = nil, members: inout Set<String>) -> [String] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            return ["not a JSON object"]
        }
        let record: DocumentedRecord
        if let expected {
            record = expected
        } else {
            guard let type = object["type"] as? String, let found = Self.record(type: type) else {
                return ["no record has type \(object["type"].map { "\($0)" } ?? "nil")"]
            }
            record = found
        }
        return problems(object, record: record, order: LiveCommand.orderedKeys(line), path: record.name, members: &members)
    }

    package static func problems(_ line: String, record expected: DocumentedRecord? = nil) -> [String] {
        var members = Set<String>()
        return problems(line, record: expected, members: &members)
    }

    private static func problems(
        _ object: [String: Any], record: DocumentedRecord, order: [String]?, path: String, members: inout Set<String>
    ) -> [String] {
        var problems: [String] = []
        let names = record.fields.map(\.name)
        for key in object.keys where !names.contains(key) { problems.append("\(path).\(key) is not documented") }
        if let order, order != names.filter({ object[$0] != nil }) {
            problems.append("\(path): members \(order) are not in the documented order \(names)")
        }
        for field in record.fields {
            let where_ = "\(path).\(field.name)"
            guard let value = object[field.name] else {
                switch field.presence {
                case .always, .nullable: problems.append("\(where_) is missing")
                case .optional: break
                case .events(let events):
                    if let event = object["event"] as? String, events.contains(event) {
                        problems.append("\(where_) is missing from a \(event) event")
                    }
                }
                continue
            }
            members.insert("\(record.name).\(field.name)")
            if case .events(let events) = field.presence, let event = object["event"] as? String, !events.contains(event) {
                problems.append("\(where_) does not belong in a \(event) event")
            }
            if value is NSNull {
                if field.presence != .nullable { problems.append("\(where_) is null") }
                continue
            }
            if field.name == "type", value as? String != record.type { problems.append("\(where_) is not \(record.type ?? "")") }
            switch field.kind {
            case .string:
                if !(value is String) { problems.append("\(where_) is not a string") }
            case .timestamp:
                if (value as? String).flatMap(LiveCommand.parseTimestamp) == nil { problems.append("\(where_) is not a UTC time") }
            case .integer:
                if !isInteger(value) { problems.append("\(where_) is not an integer") }
            case .number:
                guard let number = (value as? NSNumber)?.doubleValue, !(value is String) else {
                    problems.append("\(where_) is not a number")
                    break
                }
                if let decimals = field.decimals {
                    let scaled = number * pow(10, Double(decimals))
                    if abs(scaled - scaled.rounded()) > 1e-6 * max(1, abs(scaled)) {
                        problems.append("\(where_) has more than \(decimals) decimals")
                    }
                }
            case .strings:
                if !(value is [String]) { problems.append("\(where_) is not an array of strings") }
            case .integers:
                if (value as? [Any])?.allSatisfy(isInteger) != true { problems.append("\(where_) is not an array of integers") }
            case .object(let name):
                guard let nested = value as? [String: Any], let schema = Self.record(named: name) else {
                    problems.append("\(where_) is not an object")
                    break
                }
                problems += Self.problems(nested, record: schema, order: nil, path: where_, members: &members)
            case .objects(let name):
                guard let array = value as? [[String: Any]], let schema = Self.record(named: name) else {
                    problems.append("\(where_) is not an array of objects")
                    break
                }
                for (i, element) in array.enumerated() {
                    problems += Self.problems(element, record: schema, order: nil, path: "\(where_)[\(i)]", members: &members)
                }
            }
        }
        return problems
    }

    private static func isInteger(_ value: Any) -> Bool {
        guard let number = value as? NSNumber, !(value is String) else { return false }
        let double = number.doubleValue
        return double == double.rounded() && abs(double) < 1e15
    }
}
