package import LocationCore

/// The encoded polyline format routing services return (Google's Directions and Roads APIs,
/// OSRM, Valhalla, Mapbox): each latitude and longitude, times 10^precision and rounded, as the
/// difference from the previous point's, zig-zag encoded (a negative value's bits inverted) in
/// 5-bit chunks from the lowest, each chunk plus 63 as one ASCII character, 0x20 set on every
/// chunk but a value's last. Precision 5 is Google's and OSRM's default, 6 Valhalla's and
/// OSRM's `polyline6`.
///
/// ```swift
/// let points = try EncodedPolyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@", precision: 5)
/// // (38.5, -120.2), (40.7, -120.95), (43.252, -126.453)
/// ```
package enum EncodedPolyline {
    /// What is wrong with an encoded polyline, and at which character (0-based).
    package struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        package var offset: Int
        package var message: String

        package var description: String { "at character \(offset): \(message)" }
    }

    /// The points of `text`, in order.
    ///
    /// - Parameter precision: Decimal digits of the coordinates, 5 or 6.
    /// - Throws: ``Problem`` for a character outside `?` … `~`, a value cut short, a latitude
    ///   without its longitude, a value beyond 32 bits, or a point outside ±90°/±180°.
    package static func decode(_ text: String, precision: Int) throws(Problem) -> [Coordinate] {
        precondition(precision == 5 || precision == 6, "precision is 5 or 6")
        let scale = precision == 5 ? 1e5 : 1e6
        let bytes = Array(text.utf8)
        var points: [Coordinate] = []
        var position = 0
        var latitude = 0, longitude = 0
        func value() throws(Problem) -> Int {
            let start = position
            var result = 0
            var shift = 0
            while true {
                guard position < bytes.count else {
                    throw Problem(offset: start, message: "the value starting here is cut short (the text ends inside it)")
                }
                let byte = bytes[position]
                guard (63...126).contains(byte) else {
                    throw Problem(offset: position, message: "'\(Character(Unicode.Scalar(byte)))' is not a polyline character (? to ~)")
                }
                let chunk = Int(byte) - 63
                result |= (chunk & 0x1F) << shift
                position += 1
                guard chunk & 0x20 != 0 else { break }
                shift += 5
                guard shift < 35 else { throw Problem(offset: start, message: "the value starting here is longer than 32 bits") }
            }
            return result & 1 != 0 ? ~(result >> 1) : result >> 1
        }
        while position < bytes.count {
            let start = position
            latitude += try value()
            guard position < bytes.count else {
                throw Problem(offset: start, message: "a latitude without its longitude (the text ends after it)")
            }
            longitude += try value()
            do {
                points.append(try Coordinate(latitude: Double(latitude) / scale, longitude: Double(longitude) / scale))
            } catch {
                throw Problem(offset: start, message: "point \(points.count + 1) is not a coordinate: \(error)")
            }
        }
        return points
    }
}
