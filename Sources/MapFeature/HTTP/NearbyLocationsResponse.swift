#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import LocationCore

/// The body of `GET /locations/nearby`: snake_case JSON, mapped with explicit `CodingKeys`.
///
/// ```json
/// {"locations": [
///   {"id": "a1", "name": "Fushimi Inari", "lat": 34.9671, "lng": 135.7727,
///    "location_type": "shrine", "level": 3}
/// ]}
/// ```
///
/// `id` may be a string or an integer; `location_type` and `level` are optional. A latitude or
/// longitude out of range fails decoding with the path of the offending element
/// (`locations[3].lat`).
///
/// Package access: the wire form shared by `HTTPLocationRepository` (decoding) and `locsim serve` (encoding).
package struct NearbyLocationsResponse: Sendable, Hashable, Codable {
    /// One place on the wire.
    package struct Location: Sendable, Hashable, Codable {
        /// `id`: a string, or an integer on the wire.
        package var id: String
        /// `name`.
        package var name: String
        /// `lat`, degrees −90…90.
        package private(set) var latitude: Double
        /// `lng`, degrees −180…180.
        package private(set) var longitude: Double
        /// `location_type`, optional.
        package var locationType: String?
        /// `level`, optional.
        package var level: Int?

        enum CodingKeys: String, CodingKey {
            case id, name, level
            case latitude = "lat"
            case longitude = "lng"
            case locationType = "location_type"
        }

        /// Creates a wire value.
        ///
        /// - Throws: `CoordinateError` naming the latitude or longitude when it is not a valid
        ///   WGS-84 coordinate (the same check decoding makes).
        package init(id: String, name: String, latitude: Double, longitude: Double, locationType: String? = nil, level: Int? = nil)
            throws(CoordinateError)
        {
            _ = try Coordinate(latitude: latitude, longitude: longitude)
            self.id = id
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
            self.locationType = locationType
            self.level = level
        }

        /// The wire form of a place (an empty kind is left out).
        package init(_ place: Place) {
            id = place.id
            name = place.name
            latitude = place.coordinate.latitude
            longitude = place.coordinate.longitude
            locationType = place.kind.isEmpty ? nil : place.kind
            level = place.level
        }

        /// Decodes one location, rejecting coordinates out of range at their key.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            do {
                id = try container.decode(String.self, forKey: .id)
            } catch DecodingError.typeMismatch {
                // Not a string: it must be an integer, and this decode reports the mismatch if not.
                id = String(try container.decode(Int64.self, forKey: .id))
            }
            name = try container.decode(String.self, forKey: .name)
            latitude = try container.decode(Double.self, forKey: .latitude)
            longitude = try container.decode(Double.self, forKey: .longitude)
            locationType = try container.decodeIfPresent(String.self, forKey: .locationType)
            level = try container.decodeIfPresent(Int.self, forKey: .level)
            do {
                _ = try Coordinate(latitude: latitude, longitude: longitude)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: error.component == .latitude ? .latitude : .longitude, in: container,
                    debugDescription: error.description)
            }
        }

        /// The domain value (every way to make a `Location` validates its coordinate, which is
        /// read-only afterwards).
        package var place: Place {
            Place(id: id, name: name, coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
                  kind: locationType ?? "", level: level)
        }
    }

    /// The places, in the server's order.
    package var locations: [Location]

    /// Creates a body.
    package init(locations: [Location]) { self.locations = locations }

    /// The domain values.
    package var places: [Place] { locations.map(\.place) }
}

/// The message (and offending parameter) of an error body, whatever shape the server used.
///
/// Understands `{"message": …}`, `{"error": "…"}`, `{"error": {"message": …, "parameter": …}}`,
/// `{"detail": …}`, with an optional `parameter`/`param`/`field` key; anything else is read as
/// UTF-8 text (at most 500 characters).
struct ServerErrorMessage: Sendable, Hashable {
    var text: String
    var explicitParameter: String?

    init(body: Data) {
        let json: JSONValue?
        do {
            json = try JSONValue(parsing: body, allowsRepeatedNames: true)
        } catch {
            // Not JSON: the body is read as text below, so nothing is lost.
            json = nil
        }
        // The first of the usual keys that holds a string (a key holding anything else is skipped).
        func string(_ keys: [String], in object: JSONValue?) -> String? { keys.lazy.compactMap { object?[$0]?.string }.first }
        let parameterKeys = ["parameter", "param", "field"]
        let nested = json?["error"]
        if let text = string(["message", "error", "detail", "reason"], in: json) {
            self.text = text
            self.explicitParameter = string(parameterKeys, in: json)
        } else if let text = string(["message", "detail", "reason"], in: nested) {
            self.text = text
            self.explicitParameter = string(parameterKeys, in: json) ?? string(parameterKeys, in: nested)
        } else {
            let text = String(decoding: body, as: UTF8.self)
            let raw = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            self.text = raw.count > 500 ? String(raw.prefix(500)) + "…" : raw
            self.explicitParameter = nil
        }
    }

    /// The parameter the server named: its explicit field, else the first of `names` that the
    /// message mentions as a whole word.
    func parameter(among names: [String]) -> String? {
        if let explicitParameter { return explicitParameter }
        let words = text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
        return words.first(where: names.contains)
    }
}
