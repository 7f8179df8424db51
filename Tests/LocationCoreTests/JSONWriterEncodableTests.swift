import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

// Expected values: Foundation's JSONDecoder reads what the writer wrote back into the value that
// was written, and JSONSerialization reads it as the same object as JSONEncoder's text of that
// value; only member order (JSONEncoder keeps none) and JSON text (JSONEncoder has no way to embed
// it) are the writer's own, and are checked against the value's own declarations.

@Suite("Encodable values through the package's JSON writer", .timeLimit(.minutes(1)), .ownThread)
struct JSONWriterEncodableTests {
    struct Inner: Codable, Equatable {
        var label: String
        var values: [Double]
    }

    enum Mood: String, Codable, Equatable { case calm, busy }

    struct Sample: Codable, Equatable {
        var zeta: Int
        var alpha: String
        var flag: Bool
        var ratio: Double
        var whole: Double
        var big: UInt64
        var small: Int8
        var missing: Double?
        var present: Int?
        var mood: Mood
        var nested: Inner
        var list: [Inner]
        var matrix: [[Int]]
        var escaped: String
        var byName: [String: Int]
    }

    static let samples = [
        Sample(
            zeta: 1, alpha: "a/b", flag: true, ratio: 0.1 + 0.2, whole: 40, big: .max, small: -8, missing: nil, present: 7,
            mood: .busy, nested: Inner(label: "in", values: [1.5, -0.25, 1e-7]), list: [Inner(label: "x", values: [])],
            matrix: [[1, 2], [], [3]], escaped: "quote \" backslash \\ tab \t nul \u{0} é 😀", byName: ["b": 2]),
        Sample(
            zeta: -9_007_199_254_740_993, alpha: "", flag: false, ratio: -1e300, whole: -0.0, big: 0, small: 127, missing: 2.5,
            present: nil, mood: .calm, nested: Inner(label: "", values: [.pi]), list: [], matrix: [], escaped: "\n\r",
            byName: [:]),
    ]

    @Test("JSONDecoder reads back the value written, and JSONSerialization the same object JSONEncoder writes", arguments: samples.indices)
    func matchesFoundation(index: Int) throws {
        let sample = Self.samples[index]
        var json = JSONWriter()
        try json.encode(sample)
        let text = json.text

        #expect(try JSONDecoder().decode(Sample.self, from: Data(text.utf8)) == sample, "\(text)")
        let ours = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
        let reference = try JSONSerialization.jsonObject(with: JSONEncoder().encode(sample)) as? NSDictionary
        #expect(ours != nil && ours == reference, "\(text)")
        // A nil optional is left out, as JSONEncoder leaves it out.
        #expect(text.contains("\"missing\"") == (sample.missing != nil))
        #expect(text.contains("\"present\"") == (sample.present != nil))
    }

    @Test("Members are written in the order the type declares them")
    func declarationOrder() throws {
        var json = JSONWriter()
        try json.encode(Self.samples[0])
        let declared = Mirror(reflecting: Self.samples[0]).children.compactMap(\.label).filter { $0 != "missing" }
        let written = try #require(try Self.topLevelKeys(json.text))
        #expect(written == declared)
    }

    @Test("Whole numbers without a fraction; numbers and strings as the writer's own methods write them")
    func sameAsTheWriter() throws {
        struct Numbers: Encodable {
            var whole = 40.0
            var fraction = 35.681234567
            var text = "x\u{1}y"
            var time = Date(timeIntervalSince1970: 1_764_408_153.25)
        }
        var encoded = JSONWriter()
        try encoded.encode(Numbers())
        var direct = JSONWriter()
        direct.object { json in
            json.key("whole")
            json.number(40, decimals: nil)
            json.key("fraction")
            json.number(35.681234567)
            json.key("text")
            json.string("x\u{1}y")
            json.key("time")
            json.timestamp(Date(timeIntervalSince1970: 1_764_408_153.25))
        }
        #expect(encoded.text == direct.text)
    }

    @Test("A JSONFragment is written as the JSON it holds; any other encoder sees a string")
    func fragment() throws {
        struct Holder: Encodable {
            var before = 1
            var report = JSONFragment(#"{"class":"TPV","mode":3,"lat":35.681404400}"#)
            var after: JSONFragment? = nil
        }
        var json = JSONWriter()
        try json.encode(Holder())
        #expect(json.text == #"{"before":1,"report":{"class":"TPV","mode":3,"lat":35.681404400}}"#)
        let foundation = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Holder())) as? [String: Any]
        #expect(foundation?["report"] as? String == Holder().report.text)
    }

    @Test("A value the type encodes through its own containers: a keyed container nested in an unkeyed one, a key written twice")
    func handWrittenEncoding() throws {
        struct Custom: Encodable {
            enum Key: String, CodingKey { case first, items, first2 = "first_again" }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(1, forKey: .first)
                var items = container.nestedUnkeyedContainer(forKey: .items)
                var item = items.nestedContainer(keyedBy: Key.self)
                try item.encodeNil(forKey: .first)
                try items.encode("two")
                try container.encode(3, forKey: .first)  // the later value, in the first place
            }
        }
        var json = JSONWriter()
        try json.encode(Custom())
        #expect(json.text == #"{"first":3,"items":[{"first":null},"two"]}"#)
        let reference = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Custom())) as? NSDictionary
        #expect(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? NSDictionary == reference)
    }

    /// The keys of a JSON object's members, in the text's order.
    static func topLevelKeys(_ text: String) throws -> [String]? {
        guard case .object(let members) = try JSONValue(parsing: text.utf8) else { return nil }
        return members.map(\.name)
    }
}
