import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

// Expected values: Foundation's JSONSerialization reads the same texts; the package's reader must
// accept exactly what it accepts and read the same values.

@Suite("The package's JSON reader", .timeLimit(.minutes(1)), .ownThread)
struct JSONValueTests {
    static let valid = [
        "{}", "[]", " [1, -0.5, 2e3, 1E-2, 0, -0, 12.5e+1] ", "123", "\"plain\"", "true", "null", "[[[]]]",
        #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
        #"{"class":"TPV","device":"/dev/ttyACM0","lat":35.681236,"lon":139.767125,"alt":-12.25}"#,
        #""\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r""#,
        "\"\u{00E9}\u{1F600} raw UTF-8\"",
        "\t{\r\n\"a\" : [ 1 , 2 ] }\n",
    ]

    static let invalid = [
        "", " ", "{", "}", #"{"a"}"#, #"{"a":}"#, "01", "1.", ".5", "+1", "-", "1e", "tru", "nul",
        #""abc"#, "\"a\u{01}b\"", #""\x""#, #""\u12""#, "{} {}", "[1 2]", "{'a':1}", "NaN", #"{"a" 1}"#, "[1]]",
    ]

    @Test("Accepts what JSONSerialization accepts, with the same values", arguments: valid)
    func readsValid(text: String) throws {
        let reference = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        let value = try JSONValue(parsing: text.utf8)
        #expect(Self.same(value, reference), "\(value) vs \(reference)")
    }

    @Test("Refuses what JSONSerialization refuses, naming a byte within the text", arguments: invalid)
    func refusesInvalid(text: String) {
        #expect(throws: (any Error).self) {
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        }
        let error = #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: text.utf8) }
        if let byte = error?.byte { #expect((1...text.utf8.count).contains(byte), "\(String(describing: error))") }
        #expect(error?.description.hasPrefix("not valid JSON") == true)
    }

    @Test("Refuses, naming where, what Foundation's reader refuses past the grammar: bytes that are not UTF-8, half a surrogate pair", arguments: [
        (Array(#"{"name":"a"#.utf8) + [0xFF] + Array(#"b"}"#.utf8), 9, "the string here is not UTF-8"),
        (Array(#"["ok", "x\n"#.utf8) + [0xC3] + Array(#""]"#.utf8), 8, "the string here is not UTF-8"),
        (Array(#"{"name":"a\ud800"}"#.utf8), 11, "half of a UTF-16 surrogate pair"),
        (Array(#"{"name":"\ud800\u0041"}"#.utf8), 10, "half of a UTF-16 surrogate pair"),
        (Array(#"{"name":"\udc00"}"#.utf8), 10, "half of a UTF-16 surrogate pair"),
    ])
    func refusesPastGrammar(bytes: [UInt8], byte: Int, says: String) {
        #expect(throws: (any Error).self) { _ = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) }
        let error = #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: bytes) }
        #expect(error?.byte == byte && error?.description.contains(says) == true, "\(String(describing: error))")
    }

    @Test("Reads what Foundation reads at the edges: a subnormal number, one that underflows to 0, a surrogate pair", arguments: [
        "[4e-320, 1e-400, 0e-400, 0.000e5, -0.0]", #""\ud83d\ude00""#,
    ])
    func readsEdges(text: String) throws {
        let reference = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        let value = try JSONValue(parsing: text.utf8)
        #expect(Self.same(value, reference), "\(value) vs \(reference)")
    }

    @Test("A trailing comma is refused (RFC 8259 has none; Foundation's reader lets it pass)", arguments: ["[1,]", #"{"a":1,}"#])
    func trailingComma(text: String) {
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: text.utf8) }
    }

    @Test("Members stay in the text's order; a repeated name is refused where it repeats, or, allowed, the last one answers")
    func memberOrderAndRepeatedNames() throws {
        let text = "{\"b\":1,\"a\":2,\n \"b\":\"x\"}"
        let error = #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: text.utf8) }
        #expect(error?.repeatedName == "b")
        #expect(error?.description == "ambiguous JSON at line 2, column 2: the name \"b\" appears twice in one object (first at line 1, column 2)")
        // In nested objects too, and in a large object (whose names are then kept in a set).
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: #"[{"p":{"n":1,"n":2}}]"#.utf8) }
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let large = #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: "{\(many),\"k7\":0}".utf8) }
        #expect(large?.reason.hasPrefix("the name \"k7\" appears twice") == true, "\(String(describing: large))")
        #expect(try JSONValue(parsing: "{\(many)}".utf8)["k39"]?.number == 39)
        // The same name in two objects is no repeat.
        _ = try JSONValue(parsing: #"[{"n":1},{"n":2}]"#.utf8)

        let value = try JSONValue(parsing: text.utf8, allowsRepeatedNames: true)
        guard case .object(let members) = value else {
            Issue.record("not an object: \(value)")
            return
        }
        #expect(members.map(\.name) == ["b", "a", "b"])
        #expect(value["b"]?.string == "x" && value["a"]?.number == 2 && value["c"] == nil)
    }

    @Test("An error says its line and column, as an editor shows them; a UTF-8 byte-order mark is no part of the value")
    func lineColumnAndByteOrderMark() throws {
        let text = "{\n  \"route\": {\"file\": \"w.gpx\"},\n  \"seed\": 3,\n}\n"
        let error = #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: text.utf8) }
        #expect(error?.description == "not valid JSON at line 4, column 1: expected a member name")
        #expect(error?.byte == text.utf8.count - 1)
        // Text that ends early names the place after its last byte, where the rest would go.
        let cut = #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: "[\n {\"status\": 503},\n {\"delay\": \"2s\"".utf8) }
        #expect(cut?.byte == nil && cut?.description == "not valid JSON: the text ends early at line 3, column 16 (expected ',' or '}')")
        let afterNewline = #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: "{\"a\": 1,\n".utf8) }
        #expect(afterNewline?.line == 2 && afterNewline?.column == 1, "\(String(describing: afterNewline))")
        let marked = try JSONValue(parsing: [0xEF, 0xBB, 0xBF] + Array(#"{"seed": 3}"#.utf8))
        #expect(marked["seed"]?.number == 3)
        // Only at the start: elsewhere it is a byte that breaks the grammar.
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: Array(#"{"seed": 3}"#.utf8) + [0xEF, 0xBB, 0xBF]) }
    }

    @Test("UTF-16 text (an editor's \"Unicode\"), with a byte-order mark or without, is said to be so, as the text readers say it")
    func utf16Text() throws {
        let text = #"{"seed": 3}"#
        let utf16LE = Array(text.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE = Array(text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        for (bytes, expected) in [
            ([0xFF, 0xFE] + utf16LE, "UTF-16LE (a byte-order mark FF FE)"), ([0xFE, 0xFF] + utf16BE, "UTF-16BE (a byte-order mark FE FF)"),
            (utf16LE, "UTF-16LE (every other byte is 00)"), (utf16BE, "UTF-16BE (every other byte is 00)"),
        ] {
            let error = #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: bytes) }
            #expect(error?.description == "not valid JSON at line 1, column 1: the text is \(expected), not UTF-8; save it as UTF-8")
        }
        // One character of UTF-8 is no wider encoding.
        #expect(try JSONValue(parsing: "7".utf8).number == 7)
    }

    @Test("Containers nest at most maximumDepth deep")
    func depth() throws {
        _ = try JSONValue(parsing: "[[{}]]".utf8, maximumDepth: 3)
        let error = #expect(throws: JSONValue.SyntaxError.self) { try JSONValue(parsing: "[[[{}]]]".utf8, maximumDepth: 3) }
        #expect(error?.byte == 4)
        #expect(throws: JSONValue.SyntaxError.self) {
            try JSONValue(parsing: (String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        }
    }

    /// Whether the reader's value is what JSONSerialization read.
    static func same(_ value: JSONValue, _ reference: Any) -> Bool {
        switch value {
        case .null: return reference is NSNull
        case .bool(let flag): return (reference as? NSNumber).map { $0 == NSNumber(value: flag) } ?? false
        case .number(let number): return (reference as? NSNumber)?.doubleValue == number
        case .string(let text): return reference as? String == text
        case .array(let elements):
            guard let others = reference as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let others = reference as? [String: Any], others.count == members.count else { return false }
            return members.allSatisfy { member in others[member.name].map { same(member.value, $0) } ?? false }
        }
    }
}
