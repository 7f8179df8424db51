import Foundation
import LocationCore
import LocSimTestHelpers
import Testing

// Expected values: Fixtures/text-escaping.json, written by
// scripts/reference/make_text_escaping_reference.py, which also checks that Python's json.loads
// and xml.etree read every expected literal back to the input.

@Suite("JSON string literals and XML escaping", .ownThread)
struct TextEscapingTests {
    struct Case: Decodable, CustomStringConvertible {
        let input: [UInt32]
        let json: String
        let xml: String

        var text: String {
            var scalars = String.UnicodeScalarView()
            for value in input { scalars.append(Unicode.Scalar(value)!) }
            return String(scalars)
        }
        var description: String { json }
    }

    static func cases() throws -> [Case] {
        let url = try #require(
            Bundle.module.url(forResource: "text-escaping", withExtension: "json", subdirectory: "Fixtures"),
            "Fixtures/text-escaping.json is missing; run scripts/reference/make_text_escaping_reference.py")
        return try JSONDecoder().decode([Case].self, from: Data(contentsOf: url))
    }

    @Test("JSON literals match the reference for control characters, quotes, backslashes and non-ASCII")
    func jsonLiterals() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 20)
        for item in cases {
            #expect(JSONWriter.quoted(item.text) == item.json, "\(item)")
        }
    }

    @Test("A member's value and the raw-pointer writer (the nearby body's) write the same literal")
    func memberAndRawPointer() throws {
        for item in try Self.cases() {
            var json = JSONWriter()
            json.object { $0.member("k", item.text) }
            #expect(json.text == "{\"k\":" + item.json + "}", "\(item)")
            var utf8 = Array(item.text.utf8)
            let raw = utf8.withUnsafeMutableBufferPointer { text in
                withUnsafeTemporaryAllocation(byteCount: JSONWriter.quotedBound(text.count), alignment: 1) { out in
                    let count = JSONWriter.writeQuoted(utf8: UnsafeBufferPointer(text), to: out.baseAddress!)
                    return String(decoding: UnsafeRawBufferPointer(rebasing: out[..<count]), as: UTF8.self)
                }
            }
            #expect(raw == item.json, "\(item)")
        }
    }

    @Test("Foundation's JSON reader gives every literal back unchanged")
    func foundationReadsBack() throws {
        for item in try Self.cases() {
            let decoded = try JSONSerialization.jsonObject(with: Data("[\(JSONWriter.quoted(item.text))]".utf8)) as? [String]
            #expect(decoded == [item.text], "\(item)")
        }
    }

    @Test("JSONStringState marks exactly the bytes of each string literal, its quotes included, and nothing of the structure between")
    func stringState() throws {
        for item in try Self.cases() {
            // {"k" : [ LITERAL , "}" ] } with the literal from Python's json (the reference file).
            let pieces: [(text: String, isString: Bool)] = [
                ("{", false), ("\"k\"", true), (" : [ ", false), (item.json, true), (" , ", false), ("\"}\"", true), (" ] }", false),
            ]
            var state = JSONStringState()
            var marked: [Bool] = []
            var expected: [Bool] = []
            for piece in pieces {
                for byte in piece.text.utf8 {
                    marked.append(state.consume(byte))
                    expected.append(piece.isString)
                }
            }
            #expect(marked == expected, "\(item)")
            #expect(!state.inString, "\(item)")
        }
    }

    @Test("XML escaping matches the reference: the five predefined entities, nothing else")
    func xmlEscaping() throws {
        for item in try Self.cases() {
            #expect(XMLText.escaped(item.text) == item.xml, "\(item)")
        }
    }
}
