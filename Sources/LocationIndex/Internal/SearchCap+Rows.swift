extension SearchCap {
    /// The `placeTile` row-id ranges to read, sorted and merged where consecutive.
    ///
    /// Walks the levels down from the top: a node meeting the box is read (its row-id range)
    /// unless it is split, in which case its children meeting the box are visited instead.
    /// Level-0 nodes are never split, so their consecutive cells in a band are one range.
    func rowRanges(in grid: TileGrid, splits: SplitNodes) -> [(Int64, Int64)] {
        // One array, built and merged in place: this runs on every query, 100 m ones included.
        var builder = RangeBuilder(
            grid: grid, splits: splits, firstBand: grid.band(latitudeE7: latitudeE7.lowerBound),
            lastBand: grid.band(latitudeE7: latitudeE7.upperBound))
        builder.ranges.reserveCapacity(8)
        let passes = coversAllLongitudes ? 1 : longitudeE7.count
        for pass in 0..<passes {
            if coversAllLongitudes {
                builder.firstCell = 0
                builder.lastCell = grid.cellsPerBand - 1
            } else {
                builder.firstCell = grid.cell(longitudeE7: longitudeE7[pass].lowerBound)
                builder.lastCell = grid.cell(longitudeE7: longitudeE7[pass].upperBound)
            }
            let passStart = builder.ranges.count
            let shift = Int64(2 * TileGrid.topLevel)
            builder.visit(
                level: TileGrid.topLevel, bands: (builder.firstBand >> shift, builder.lastBand >> shift),
                cells: (builder.firstCell >> shift, builder.lastCell >> shift))
            // Within one longitude range of the box, the rows of one level and band lying between
            // two of these ranges belong to no other node (a node of the box there is split, or
            // below a stored node, so it has no row at this level): one range per level and
            // band reads the same rows with fewer seeks.
            if builder.ranges.count - passStart > 1 {
                builder.ranges[passStart...].sort { $0.0 < $1.0 }
                var kept = passStart
                var keptBand = Self.levelAndBand(builder.ranges[passStart].0, grid)
                for index in (passStart + 1)..<builder.ranges.count {
                    let range = builder.ranges[index]
                    let band = Self.levelAndBand(range.0, grid)
                    if band == keptBand {
                        builder.ranges[kept].1 = max(builder.ranges[kept].1, range.1)
                    } else {
                        kept += 1
                        builder.ranges[kept] = range
                        keptBand = band
                    }
                }
                builder.ranges.removeSubrange((kept + 1)...)
            }
        }
        var ranges: [(Int64, Int64)] = []
        swap(&ranges, &builder.ranges)
        guard ranges.count > 1 else { return ranges }
        if passes > 1 { ranges.sort { $0.0 < $1.0 } }
        // Join ranges that touch or overlap (consecutive bands read whole, or the two halves of
        // an antimeridian box).
        var kept = 0
        for index in 1..<ranges.count {
            if ranges[index].0 <= ranges[kept].1 + 1 {
                ranges[kept].1 = max(ranges[kept].1, ranges[index].1)
            } else {
                kept += 1
                ranges[kept] = ranges[index]
            }
        }
        ranges.removeSubrange((kept + 1)...)
        return ranges
    }

    /// Level and band of a row id, as one comparable value.
    @inline(__always) private static func levelAndBand(_ rowID: Int64, _ grid: TileGrid) -> Int64 {
        let level = rowID >> TileGrid.levelShift
        let band = ((rowID >> TileGrid.partBits) & TileGrid.nodeKeyMask) / grid.cellsPerBand(level: Int(level))
        return level << 32 | band
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
