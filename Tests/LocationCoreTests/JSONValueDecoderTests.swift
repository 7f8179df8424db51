import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

// Expected values: Foundation's JSONDecoder reads the same texts into the same types; the
// package's decoder must read the same values and fail where it fails, at the same coding path.

@Suite("JSONValueDecoder: Codable from the package's JSON reader", .timeLimit(.minutes(1)), .ownThread)
struct JSONValueDecoderTests {
    struct Leg: Codable, Equatable {
        var from: [Double]
        var minutes: Int?
    }

    struct Plan: Codable, Equatable {
        enum Mode: String, Codable { case walk, drive }
        var name: String
        var mode: Mode
        var loop: Bool
        var count: UInt16
        var speed: Double?
        var legs: [Leg]
        var tags: [String: String]
        var matrix: [[Int]]
    }

    static let valid = [
        #"{"name":"a","mode":"walk","loop":true,"count":3,"legs":[],"tags":{},"matrix":[]}"#,
        #"{"name":"b\u00e9","mode":"drive","loop":false,"count":65535,"speed":-0.5,"legs":[{"from":[1,2.5]},{"from":[],"minutes":30}],"tags":{"k":"v","x":""},"matrix":[[1,2],[],[3]]}"#,
        #"{"speed":null,"name":"c","mode":"walk","loop":true,"count":0,"legs":[{"from":[1e2],"minutes":null}],"tags":{"a":"b"},"matrix":[[-7]],"extra":1}"#,
    ]

    @Test("Reads what JSONDecoder reads, with the same values", arguments: valid)
    func readsAsJSONDecoder(text: String) throws {
        let reference = try JSONDecoder().decode(Plan.self, from: Data(text.utf8))
        let value = try JSONValueDecoder.decode(Plan.self, from: try JSONValue(parsing: text.utf8))
        #expect(value == reference)
    }

    static let invalid = [
        #"{"mode":"walk","loop":true,"count":3,"legs":[],"tags":{},"matrix":[]}"#,  // no name
        #"{"name":1,"mode":"walk","loop":true,"count":3,"legs":[],"tags":{},"matrix":[]}"#,
        #"{"name":"a","mode":"fly","loop":true,"count":3,"legs":[],"tags":{},"matrix":[]}"#,
        #"{"name":"a","mode":"walk","loop":1,"count":3,"legs":[],"tags":{},"matrix":[]}"#,
        #"{"name":"a","mode":"walk","loop":true,"count":2.5,"legs":[],"tags":{},"matrix":[]}"#,
        #"{"name":"a","mode":"walk","loop":true,"count":65536,"legs":[],"tags":{},"matrix":[]}"#,
        #"{"name":"a","mode":"walk","loop":true,"count":-1,"legs":[],"tags":{},"matrix":[]}"#,
        #"{"name":"a","mode":"walk","loop":true,"count":3,"legs":[{"from":[1,"x"]}],"tags":{},"matrix":[]}"#,
        #"{"name":"a","mode":"walk","loop":true,"count":3,"legs":[{"minutes":1}],"tags":{},"matrix":[]}"#,
        #"{"name":"a","mode":"walk","loop":true,"count":3,"legs":{},"tags":{},"matrix":[]}"#,
        #"{"name":"a","mode":"walk","loop":true,"count":3,"legs":[],"tags":{"k":2},"matrix":[]}"#,
        #"{"name":"a","mode":"walk","loop":true,"count":3,"legs":[],"tags":{},"matrix":[[1],[null]]}"#,
        #"{"name":null,"mode":"walk","loop":true,"count":3,"legs":[],"tags":{},"matrix":[]}"#,
        #"[1]"#,
    ]

    @Test("Fails where JSONDecoder fails, with the same kind of error at the same coding path", arguments: invalid)
    func failsAsJSONDecoder(text: String) throws {
        let reference = try #require(throws: DecodingError.self) { try JSONDecoder().decode(Plan.self, from: Data(text.utf8)) }
        let error = try #require(throws: DecodingError.self) { try JSONValueDecoder.decode(Plan.self, from: try JSONValue(parsing: text.utf8)) }
        #expect(Self.kind(error) == Self.kind(reference), "\(error) vs \(reference)")
        if Self.kind(reference) == "dataCorrupted" && Self.path(reference).isEmpty {
            // A number that does not fit an integer: JSONDecoder names no path; this decoder names the member.
            #expect(Self.path(error) == "count", "\(error)")
        } else {
            #expect(Self.path(error) == Self.path(reference), "\(error) vs \(reference)")
        }
    }

    static func kind(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound: "keyNotFound"
        case .valueNotFound: "valueNotFound"
        case .typeMismatch: "typeMismatch"
        case .dataCorrupted: "dataCorrupted"
        @unknown default: "other"
        }
    }

    /// The coding path as text (`legs.[0].from.[1]`), the missing key included.
    static func path(_ error: DecodingError) -> String {
        let (context, key): (DecodingError.Context?, (any CodingKey)?) =
            switch error {
            case .keyNotFound(let key, let context): (context, key)
            case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context): (context, nil)
            @unknown default: (nil, nil)
            }
        let keys = (context?.codingPath ?? []) + (key.map { [$0] } ?? [])
        return keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
