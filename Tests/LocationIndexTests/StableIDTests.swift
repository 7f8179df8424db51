import Foundation
import LocationCore
import LocSimTestHelpers
@testable import LocationIndex
@testable import Places
import Testing

// Expected values: Fixtures/stable-ids.json, written by scripts/reference/make_stable_id_reference.py
// (FNV-1a, base 36, the id recipes and the cache fingerprint re-implemented in Python). These are
// values users keep (ids in their databases, cache file names): they must never change by accident.

@Suite("Derived place ids and the cache fingerprint stay the same", .ownThread)
struct StableIDTests {
    struct Reference: Decodable {
        struct Hash: Decodable { let text, fnv1a64: String }
        struct Feature: Decodable { let name, id: String, latitude, longitude: Double }
        let hashes: [Hash]
        let geoNames: [String]
        let geoJSON: [Feature]
        let fingerprint: [String: String]
    }

    static func reference() throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: URL(fileURLWithPath: try fixture("stable-ids.json"))))
    }

    @Test("FNV-1a 64 of UTF-8 text, whole or fed in pieces")
    func hashes() throws {
        let reference = try Self.reference()
        #expect(reference.hashes.count >= 5)
        for item in reference.hashes {
            let hex = String(FNV1a64.hash(item.text.utf8), radix: 16)
            #expect(String(repeating: "0", count: 16 - hex.count) + hex == item.fnv1a64, "\(item.text)")
            var pieces = FNV1a64()
            for character in item.text { pieces.combine(String(character).utf8) }
            #expect(pieces.value == FNV1a64.hash(item.text.utf8), "\(item.text)")
        }
    }

    @Test("GeoNames rows get the reference ids, repeats numbered")
    func geoNamesIDs() throws {
        let reference = try Self.reference()
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            try index.importPlaces(fromFile: try fixture("geonames-sample.csv"), options: .init(format: .geoNames))
            #expect(try everything(index).map(\.id).sorted() == reference.geoNames.sorted())
        }
    }

    @Test("GeoJSON features without an id get the reference ids")
    func geoJSONIDs() throws {
        let reference = try Self.reference()
        let features = reference.geoJSON.map { feature in
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(feature.longitude),\#(feature.latitude)]},"#
                + #""properties":{"name":\#(JSONWriter.quoted(feature.name))}}"#
        }
        let json = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
        try withTemporaryDirectory { directory in
            let path = directory.file("p.geojson")
            try json.write(toFile: path, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            #expect(try index.importPlaces(fromFile: path).inserted == reference.geoJSON.count)
            let ids = Dictionary(uniqueKeysWithValues: try everything(index).map { ($0.name, $0.id) })
            for feature in reference.geoJSON {
                #expect(ids[feature.name] == feature.id, "\(feature.name)")
            }
        }
    }

    @Test("The default database's file name carries the reference fingerprint")
    func fingerprint() throws {
        let reference = try Self.reference()
        let expected = try #require(
            reference.fingerprint[String(IndexSchema.latestVersion)],
            "schema \(IndexSchema.latestVersion) is past the reference; extend make_stable_id_reference.py")
        let path = try DefaultPlaceDatabase.databasePath(
            geodataDirectory: try fixture("fingerprint-geodata"), cacheDirectory: "/cache")
        #expect(path == "/cache/geodata-\(expected).sqlite")
    }
}
