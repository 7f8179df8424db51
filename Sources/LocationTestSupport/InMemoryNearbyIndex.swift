#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import LocationCore
public import MapFeature

/// A nearby-places repository over places held in memory: the offline index for tests that need
/// no database.
///
/// Answers like the game server's `GET /locations/nearby`: every place whose great-circle
/// distance (``/LocationCore/Coordinate/distance(to:)``) from the centre is at most the radius,
/// nearest first, ties broken by id. Places are bucketed in a grid of 0.1° cells, so a 5 km
/// query over 144,000 places looks at a few hundred; queries near a pole or wider than the grid
/// helps with scan everything. Crossing the antimeridian is handled.
///
/// ```swift
/// let index = InMemoryNearbyIndex(places: shrines)
/// let near = try await index.fetchNearby(center: here, radius: 5_000)
/// ```
public struct InMemoryNearbyIndex: LocationRepository {
    /// Every place, in the order given.
    public let places: [Place]

    private let cells: [Cell: [Int]]
    private static let cellDegrees = 0.1
    private static let metresPerDegree = Sphere.radius * Double.pi / 180

    private struct Cell: Hashable, Sendable {
        var row: Int
        var column: Int
    }

    /// Indexes `places`.
    public init(places: [Place]) {
        self.places = places
        var cells: [Cell: [Int]] = [:]
        for (index, place) in places.enumerated() {
            cells[Self.cell(of: place.coordinate), default: []].append(index)
        }
        self.cells = cells
    }

    /// Places within `radius` metres of `center`, nearest first (ties by id).
    ///
    /// - Parameters:
    ///   - center: The query point.
    ///   - radius: Metres, finite and > 0.
    /// - Throws: ``/MapFeature/AppError`` with code ``/MapFeature/AppError/Code/validation`` and
    ///   parameter `radius` for a radius that is not finite and positive.
    public func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        try nearby(center: center, radius: radius)
    }

    /// The synchronous query behind ``fetchNearby(center:radius:)``.
    public func nearby(center: Coordinate, radius: Double) throws(AppError) -> [Place] {
        guard radius.isFinite, radius > 0 else {
            throw .validation("radius must be a finite number of metres > 0, got \(radius)", parameter: "radius")
        }
        var found: [(distance: Double, place: Place)] = []
        let origin = HaversineOrigin(center)  // bit-identical to center.distance(to:)
        func consider(_ index: Int) {
            let place = places[index]
            let distance = origin.distance(to: place.coordinate)
            if distance <= radius { found.append((distance, place)) }
        }
        if let candidates = candidateCells(center: center, radius: radius) {
            for cell in candidates { for index in cells[cell] ?? [] { consider(index) } }
        } else {
            for index in places.indices { consider(index) }
        }
        found.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.place.id < $1.place.id }
        return found.map(\.place)
    }

    /// The grid cells a query can touch, or `nil` when scanning everything is simpler (near a
    /// pole, or a radius spanning more than a few degrees).
    private func candidateCells(center: Coordinate, radius: Double) -> [Cell]? {
        // A margin of one part in a thousand covers rounding in the degree conversion.
        let latitudeSpan = radius * 1.001 / Self.metresPerDegree
        let south = center.latitude - latitudeSpan, north = center.latitude + latitudeSpan
        guard south > -89, north < 89, latitudeSpan < 5 else { return nil }
        // The widest parallel within the band is the one closest to the pole.
        let widest = max(abs(south), abs(north)) * Double.pi / 180
        let longitudeSpan = latitudeSpan / cos(widest)
        guard longitudeSpan < 5 else { return nil }
        let rows = Self.index(south)...Self.index(north)
        let columnCount = Int((360 / Self.cellDegrees).rounded())
        let firstColumn = Self.index(center.longitude - longitudeSpan)
        let lastColumn = Self.index(center.longitude + longitudeSpan)
        var result: [Cell] = []
        for row in rows {
            for column in firstColumn...lastColumn {
                // Wrap across the antimeridian into the −180..<180 grid.
                let wrapped = ((column + columnCount / 2) % columnCount + columnCount) % columnCount - columnCount / 2
                result.append(Cell(row: row, column: wrapped))
            }
        }
        return result
    }

    private static func cell(of coordinate: Coordinate) -> Cell {
        Cell(row: index(coordinate.latitude), column: index(coordinate.longitude))
    }

    private static func index(_ degrees: Double) -> Int {
        Int((degrees / cellDegrees).rounded(.down))
    }
}
