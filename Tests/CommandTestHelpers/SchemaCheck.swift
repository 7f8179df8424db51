import Foundation
import LocSimTestHelpers
package import Testing

package import LocSimCommand

/// Checks one JSON line against ``JSONLSchema``.
package enum SchemaCheck {
    /// Checks every line of `output` (records found by their `type`, or `record`), and returns the
    /// types seen.
    package static func check(_ output: String, record: JSONLRecordSchema? = nil, sourceLocation: SourceLocation = #_sourceLocation)
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


    package static func problems(_ line: String, record expected: JSONLRecordSchema? = nil) -> [String] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            return ["not a JSON object"]
        }
        let record: JSONLRecordSchema
        if let expected {
            record = expected
        } else {
            guard let type = object["type"] as? String, let found = JSONLSchema.record(type: type) else {
                return ["no record has type \(object["type"].map { "\($0)" } ?? "nil")"]
            }
            record = found
        }
        return problems(object, record: record, order: LiveCommand.orderedKeys(line), path: record.name)
    }

    private static func problems(_ object: [String: Any], record: JSONLRecordSchema, order: [String]?, path: String) -> [String] {
        var problems: [String] = []
        let names = record.fields.map(\.name)
        for key in object.keys where !names.contains(key) { problems.append("\(path).\(key) is not in the schema") }
        if let order, order != names.filter({ object[$0] != nil }) {
            problems.append("\(path): members \(order) are not in the schema's order \(names)")
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
            if case .events(let events) = field.presence, let event = object["event"] as? String, !events.contains(event) {
                problems.append("\(where_) does not belong in a \(event) event")
            }
            if value is NSNull {
                if !field.isNullable { problems.append("\(where_) is null") }
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
                guard let nested = value as? [String: Any], let schema = JSONLSchema.record(named: name) else {
                    problems.append("\(where_) is not an object")
                    break
                }
                problems += Self.problems(nested, record: schema, order: nil, path: where_)
            case .objects(let name):
                guard let array = value as? [[String: Any]], let schema = JSONLSchema.record(named: name) else {
                    problems.append("\(where_) is not an array of objects")
                    break
                }
                for (i, element) in array.enumerated() { problems += Self.problems(element, record: schema, order: nil, path: "\(where_)[\(i)]") }
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
