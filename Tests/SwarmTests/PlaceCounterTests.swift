import SwarmHTTP
import Testing
import LocSimTestHelpers

/// The swarm's client counts places as the body streams in, and calls a body malformed where the
/// app's decoder would fail: `{"locations":[…]}` with objects in the array, nothing else.
@Suite("PlaceCounter", .ownThread)
struct PlaceCounterTests {
    /// Places in `body` fed in two parts split at `split` (the whole at once when nil).
    static func places(_ body: String, split: Int? = nil) -> Int? {
        var counter = PlaceCounter()
        let bytes = Array(body.utf8)
        let cut = split ?? bytes.count
        bytes[..<cut].withUnsafeBytes { counter.scan($0) }
        bytes[cut...].withUnsafeBytes { counter.scan($0) }
        return counter.places
    }

    static let valid: [(String, Int)] = [
        (#"{"locations":[]}"#, 0),
        (#"{"locations":[{"id":"a","name":"Park {1}","lat":1,"lng":2},{"id":"b","name":"say \"}]\""}]}"#, 2),
        (" {\n  \"locations\" : [ {\"id\":\"a\"} ,\n {\"id\":\"b\"}, {} ]\n}\n", 3),
        // Other members are ignored (as the app's decoder does), even ones named like the array.
        (#"{"next":null,"locations":[{"tags":[1,{"b":2}],"locations":5}],"meta":{"locations":7},"n":3}"#, 1),
    ]

    @Test("the places of a valid answer, whatever the split of its bytes", arguments: valid)
    func counts(body: String, places: Int) {
        for split in 0...body.utf8.count {
            #expect(Self.places(body, split: split) == places, "split at \(split)")
        }
    }

    @Test("a body the app could not decode is no answer", arguments: [
        #"{"locations": 5}"#, #"{"locations":null}"#, #"{"locations":{}}"#, #"{"locations":"[]"}"#,
        #"{"locations":[1]}"#, #"{"locations":[{},true]}"#, #"{"locations":["a"]}"#, #"{"locations":[[]]}"#,
        "{}", #"{"places":[{}]}"#, #"{"location":[{}]}"#, #"{"locations_":[{}]}"#, "[]", #"{"locations":[]}{}"#,
        #"{"locations":["#, #"{"locations":[{}]"#, #"{"locations":[]}]"#, #"{"locations":[{"name":"x}"#, "",
    ])
    func malformed(body: String) {
        for split in 0...body.utf8.count {
            #expect(Self.places(body, split: split) == nil, "split at \(split)")
        }
    }
}
