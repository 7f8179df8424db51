#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import LocationCore

/// The latitude/longitude box around a spherical cap, in 1e-7° integer units: what the index
/// prefilters on before the exact distance test.
///
/// For a cap of angular radius δ around latitude φ:
/// - latitudes φ − δ … φ + δ;
/// - when that reaches a pole the cap contains the pole, and every longitude is in range;
/// - otherwise the longitude half-width is asin(sin δ / cos φ) (the meridians tangent to the
///   cap), not δ / cos φ, which is too narrow far from the equator and undefined near a pole;
/// - a longitude range crossing ±180° becomes two ranges.
///
/// Every bound is widened by ``margin`` so rounding can only add candidates, never lose one;
/// the exact test removes the extras.
package struct SearchCap: Sendable, Hashable {
    /// Widening on every side, in degrees (about 11 cm).
    static let margin = 1e-6

    package var latitudeE7: ClosedRange<Int64>
    /// One range, or two when the box crosses ±180°; the full range when the cap holds a pole.
    package var longitudeE7: [ClosedRange<Int64>]

    static let fullLongitude: ClosedRange<Int64> = -1_800_000_000...1_799_999_999

    var coversAllLongitudes: Bool { longitudeE7 == [Self.fullLongitude] }

    package init(center: Coordinate, radius: Double) {
        let delta = radius / Sphere.radius
        let deltaDegrees = delta * 180 / Double.pi
        let phi = center.latitude
        let south = phi - deltaDegrees - Self.margin
        let north = phi + deltaDegrees + Self.margin
        latitudeE7 = Self.floorE7(max(-90, south))...Self.ceilE7(min(90, north))
        if south <= -90 || north >= 90 {
            longitudeE7 = [Self.fullLongitude]
            return
        }
        let ratio = sin(delta) / cos(phi * Double.pi / 180)
        guard ratio < 1 else {
            longitudeE7 = [Self.fullLongitude]
            return
        }
        let halfWidth = asin(ratio) * 180 / Double.pi + Self.margin
        guard halfWidth < 180 else {
            longitudeE7 = [Self.fullLongitude]
            return
        }
        let west = center.longitude - halfWidth
        let east = center.longitude + halfWidth
        if west < -180 {
            longitudeE7 = [Self.floorE7(west + 360)...Self.fullLongitude.upperBound, Self.fullLongitude.lowerBound...Self.ceilE7(east)]
        } else if east >= 180 {
            longitudeE7 = [Self.floorE7(west)...Self.fullLongitude.upperBound, Self.fullLongitude.lowerBound...Self.ceilE7(east - 360)]
        } else {
            longitudeE7 = [Self.floorE7(west)...Self.ceilE7(east)]
        }
    }

    private static func floorE7(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded(.down)) }
    private static func ceilE7(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded(.up)) }

    /// The `placeTile` row-id ranges to read, sorted and merged where consecutive.
    ///
    /// Walks the levels down from the top: a node meeting the box is read (its row-id range)
    /// unless it is split, in which case its children meeting the box are visited instead.
    /// Level-0 nodes are never split, so their consecutive cells in a band are one range.
    func rowRanges(in grid: TileGrid, splits: SplitNodes) -> [(Int64, Int64)] {
        var builder = RangeBuilder(
            grid: grid, splits: splits, firstBand: grid.band(latitudeE7: latitudeE7.lowerBound),
            lastBand: grid.band(latitudeE7: latitudeE7.upperBound))
        let cellRanges: [(Int64, Int64)] =
            coversAllLongitudes
            ? [(0, grid.cellsPerBand - 1)]
            : longitudeE7.map { (grid.cell(longitudeE7: $0.lowerBound), grid.cell(longitudeE7: $0.upperBound)) }
        let top = TileGrid.topLevel
        let shift = Int64(2 * top)
        for cells in cellRanges {
            builder.firstCell = cells.0
            builder.lastCell = cells.1
            builder.visit(
                level: top, bands: (builder.firstBand >> shift, builder.lastBand >> shift), cells: (cells.0 >> shift, cells.1 >> shift))
        }
        var ranges = builder.ranges
        if ranges.count > 1 { ranges.sort { $0.0 < $1.0 } }
        var merged: [(Int64, Int64)] = []
        merged.reserveCapacity(ranges.count)
        for range in ranges {
            if let last = merged.last, range.0 <= last.1 + 1 {
                merged[merged.count - 1].1 = max(last.1, range.1)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}

/// The walk behind ``SearchCap/rowRanges(in:splits:)`` for one longitude range of the box.
private struct RangeBuilder {
    let grid: TileGrid
    let splits: SplitNodes
    /// The box in level-0 bands and cells.
    let firstBand: Int64
    let lastBand: Int64
    var firstCell: Int64 = 0
    var lastCell: Int64 = 0
    var ranges: [(Int64, Int64)] = []

    init(grid: TileGrid, splits: SplitNodes, firstBand: Int64, lastBand: Int64) {
        self.grid = grid
        self.splits = splits
        self.firstBand = firstBand
        self.lastBand = lastBand
    }

    /// Visits the nodes of `level` in `bands` × `cells` (inclusive, already clipped to the box).
    mutating func visit(level: Int, bands: (Int64, Int64), cells: (Int64, Int64)) {
        let perBand = grid.cellsPerBand(level: level)
        if level == 0 {
            for band in bands.0...bands.1 {
                ranges.append(grid.rowRange(level: 0, firstKey: band * perBand + cells.0, lastKey: band * perBand + cells.1))
            }
            return
        }
        // The box at the level below, to clip children to.
        let shift = Int64(2 * (level - 1))
        let childBands = (firstBand >> shift, lastBand >> shift)
        let childCells = (firstCell >> shift, lastCell >> shift)
        for band in bands.0...bands.1 {
            let base = band * perBand
            var runStart: Int64? = nil
            for cell in cells.0...cells.1 {
                if splits.contains(TileGrid.rowID(level: level, key: base + cell)) {
                    if let start = runStart {
                        ranges.append(grid.rowRange(level: level, firstKey: base + start, lastKey: base + cell - 1))
                        runStart = nil
                    }
                    visit(
                        level: level - 1, bands: (max(band << 2, childBands.0), min(band << 2 + 3, childBands.1)),
                        cells: (max(cell << 2, childCells.0), min(cell << 2 + 3, childCells.1)))
                } else if runStart == nil {
                    runStart = cell
                }
            }
            if let start = runStart {
                ranges.append(grid.rowRange(level: level, firstKey: base + start, lastKey: base + cells.1))
            }
        }
    }
}
