import Foundation

/// One line of Fixtures/reference.jsonl (written by make_reference.py).
struct ReferenceRow: Decodable {
    struct FixValues: Decodable {
        let time: Double
        let lat: Double?
        let lon: Double?
        let alt: Double?
        let speed: Double?
        let course: Double?
        let mode: Int
    }
    struct Decoded: Decodable {
        struct RMC: Decodable {
            let lat: Double?
            let lon: Double?
            let status: String
            let seconds: Double
            let date: String
            let knots: Double?
            let course: Double?
        }
        struct GGA: Decodable {
            let lat: Double?
            let lon: Double?
            let quality: Int
            let altitude: Double?
        }
        struct VTG: Decodable {
            let knots: Double?
            let kmh: Double?
            let course: Double?
        }
        struct GSA: Decodable {
            let fixType: Int
        }
        let rmc: RMC
        let gga: GGA
        let vtg: VTG
        let gsa: GSA
    }
    let fix: FixValues
    let talker: String
    let text: String
    let pynmea2: Decoded
}

/// One line of Fixtures/variants.jsonl: a sentence and pynmea2's decoding of it.
struct VariantRow: Decodable {
    let sentence: String
    let type: String
    let talker: String
    // RMC and GGA
    let lat: Double?
    let lon: Double?
    let seconds: Double?
    // RMC
    let status: String?
    let date: String?
    let knots: Double?
    let course: Double?
    let variation: Double?
    let mode: String?
    let navigationalStatus: String?
    // GGA
    let quality: Int?
    let satellitesInUse: Int?
    let hdop: Double?
    let altitude: Double?
    let geoidSeparation: Double?
    let age: Double?
    let station: String?
    // VTG
    let courseTrue: Double?
    let courseMagnetic: Double?
    let kmh: Double?
    // GSA
    let selection: String?
    let fixType: Int?
    let satelliteIDs: [Int]?
    let pdop: Double?
    let vdop: Double?
    let systemID: Int?
    // DTM
    let localDatum: String?
    let subdivision: String?
    let latitudeOffset: Double?
    let longitudeOffset: Double?
    let altitudeOffset: Double?
    let referenceDatum: String?
}

extension Fixtures {
    /// Decodes a JSON-lines fixture with `JSONDecoder` (exact `Double` parsing).
    static func jsonLines<Row: Decodable>(_ name: String, as type: Row.Type) throws -> [Row] {
        let text = try String(contentsOf: url(name), encoding: .utf8)
        let decoder = JSONDecoder()
        return try text.split(separator: "\n").map { try decoder.decode(Row.self, from: Data($0.utf8)) }
    }
}
