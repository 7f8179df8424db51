import LocationCore

/// The grid that assigns places to tiles: latitude bands `size` high, cut into cells `size`
/// wide, all in 1e-7° integer units so assignment has no rounding at cell edges.
///
/// A tile's key is `band * cellsPerBand + cell`, so one band's cells are consecutive keys and a
/// longitude range in one band is one key range. Rows of `placeTile` are keyed
/// `level << 48 | key << 16 | part`: nodes of levels 1...5 group 4^level × 4^level tiles (see
/// the Levels section below), and a node with more places than fit in one row is split into
/// parts. Level 0 is the v1 layout `key << 16 | part`.
struct TileGrid: Sendable, Hashable {
    /// Tile edge in 1e-7° units.
    let size: Int64
    let bandCount: Int64
    let cellsPerBand: Int64

    init(sizeE7: Int64) {
        // ≥ 0.005° keeps the keys in the bits the row ids and the import's path keys give them.
        precondition(sizeE7 >= 50_000 && sizeE7 <= 450_000_000)
        size = sizeE7
        bandCount = (1_800_000_000 + sizeE7 - 1) / sizeE7
        cellsPerBand = (3_600_000_000 + sizeE7 - 1) / sizeE7
        // Level-0 keys fit the 32 key bits of a row id, and top-level keys the 12 bits a path key leaves them.
        precondition(bandCount * cellsPerBand <= Self.nodeKeyMask)
        precondition(
            ((bandCount - 1) >> Int64(2 * Self.topLevel) + 1) * cellsPerBand(level: Self.topLevel) <= 1 << 12)
    }

    static let partBits: Int64 = 16

    @inline(__always) func band(latitudeE7: Int64) -> Int64 {
        min((latitudeE7 + 900_000_000) / size, bandCount - 1)
    }
    @inline(__always) func cell(longitudeE7: Int64) -> Int64 {
        min((longitudeE7 + 1_800_000_000) / size, cellsPerBand - 1)
    }
    @inline(__always) func key(latitudeE7: Int32, longitudeE7: Int32) -> Int64 {
        band(latitudeE7: Int64(latitudeE7)) * cellsPerBand + cell(longitudeE7: Int64(longitudeE7))
    }

    // MARK: Levels (schema v2)
    //
    // Sparse data would pay a row's overhead per place at level 0, so a node of level ℓ is the
    // 4^ℓ × 4^ℓ block of level-0 tiles: band_ℓ = band_0 >> 2ℓ, cell_ℓ = cell_0 >> 2ℓ. Nesting is
    // exact (integer shifts of the level-0 indices), so every level-ℓ node lies inside exactly one
    // level-(ℓ+1) node. A node's places are stored at the coarsest level where it holds at most
    // ``IndexWriter/maximumPlacesPerNode`` places (level 0 always stores), so the stored nodes
    // form a cut through the tree: every place is in exactly one row, and the nodes above a
    // stored node are "split" (recorded in table `placeSplit`).

    /// Levels 0 ... `levelCount - 1`.
    static let levelCount = 6
    static let topLevel = levelCount - 1
    /// Bits of the level in a row id (above the node key and the part).
    static let levelShift: Int64 = 48
    static let nodeKeyMask: Int64 = 0xFFFF_FFFF

    /// Cells in one band of level `level`: ceil(cellsPerBand / 4^level).
    @inline(__always) func cellsPerBand(level: Int) -> Int64 {
        let shift = Int64(2 * level)
        return (cellsPerBand + (1 << shift) - 1) >> shift
    }
    /// Key of the level-`level` node holding the level-0 tile (`band0`, `cell0`).
    @inline(__always) func nodeKey(level: Int, band0: Int64, cell0: Int64) -> Int64 {
        let shift = Int64(2 * level)
        return (band0 >> shift) * cellsPerBand(level: level) + (cell0 >> shift)
    }
    /// Row id of part `part` of node `key` at `level`; level 0 is the v1 layout `key << 16 | part`.
    @inline(__always) static func rowID(level: Int, key: Int64, part: Int64 = 0) -> Int64 {
        (Int64(level) << levelShift) | (key << partBits) | part
    }
    /// Row ids of all parts of the nodes `firstKey...lastKey` of one level.
    @inline(__always) func rowRange(level: Int, firstKey: Int64, lastKey: Int64) -> (Int64, Int64) {
        (Self.rowID(level: level, key: firstKey), Self.rowID(level: level, key: lastKey, part: (1 << Self.partBits) - 1))
    }
    /// The level of a row id, or nil when the id is not one this layout makes.
    @inline(__always) static func level(ofRow rowID: Int64) -> Int? {
        let level = rowID >> levelShift
        return rowID >= 0 && level < Int64(levelCount) ? Int(level) : nil
    }
    /// Key of the top-level node holding row `rowID` of level `level` (parts ignored).
    @inline(__always) func topNodeKey(ofRow rowID: Int64, level: Int) -> Int64 {
        let key = (rowID >> Self.partBits) & Self.nodeKeyMask
        let perBand = cellsPerBand(level: level)
        let shift = Int64(2 * (Self.topLevel - level))
        return ((key / perBand) >> shift) * cellsPerBand(level: Self.topLevel) + ((key % perBand) >> shift)
    }
    /// Key of the top-level node holding `record`.
    @inline(__always) func topNodeKey(of record: PlaceRecord) -> Int64 {
        nodeKey(
            level: Self.topLevel, band0: band(latitudeE7: Int64(record.latitudeE7)),
            cell0: cell(longitudeE7: Int64(record.longitudeE7)))
    }
    /// The path from the top level down to the level-0 tile (`band0`, `cell0`), as one integer
    /// below 2^32: the top-level node key, then for each level below it the child's position
    /// (2 bits of band, 2 of cell). Sorting by it makes every node of every level a contiguous
    /// run, and `pathKey >> 4ℓ` identifies the level-ℓ node.
    @inline(__always) func pathKey(band0: Int64, cell0: Int64) -> Int64 {
        var path = nodeKey(level: Self.topLevel, band0: band0, cell0: cell0)
        for level in stride(from: Self.topLevel - 1, through: 0, by: -1) {
            let shift = Int64(2 * level)
            path = path << 4 | ((band0 >> shift) & 3) << 2 | ((cell0 >> shift) & 3)
        }
        return path
    }
}

/// The byte layout of one `placeTile` row (little-endian, column-wise so the query loop reads
/// only the two coordinate arrays until a place is a hit):
///
/// ```
/// u32 count n
/// i32 latitudeE7[n]     sorted ascending (then longitude, then id)
/// i32 longitudeE7[n]
/// u16 kindCode[n]
/// i32 level[n]          Int32.min = none
/// u16 textEnd[2n]       end offsets of id₀, name₀, id₁, name₁… within the text
/// u8  text[]            UTF-8
/// ```
enum PlaceTileCodec {
    /// Largest encoded part: stays inside one 64 KiB page, so SQLite reads it with no overflow
    /// chain to follow (it still copies the blob once into the statement's buffer).
    static let maximumBytes = 65_000
    static let fixedBytesPerPlace = 18

    /// Encodes records (already sorted) into parts of at most ``maximumBytes`` each.
    static func encodeParts(_ records: ArraySlice<PlaceRecord>) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var start = records.startIndex
        while start < records.endIndex {
            var end = start
            var bytes = 4
            while end < records.endIndex {
                let size = fixedBytesPerPlace + records[end].id.utf8.count + records[end].name.utf8.count
                if end > start && bytes + size > maximumBytes { break }
                bytes += size
                end += 1
            }
            parts.append(encode(records[start..<end], totalBytes: bytes))
            start = end
        }
        return parts
    }

    private static func encode(_ records: ArraySlice<PlaceRecord>, totalBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(totalBytes)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }
        append(UInt32(records.count))
        for record in records { append(record.latitudeE7) }
        for record in records { append(record.longitudeE7) }
        for record in records { append(record.kindCode) }
        for record in records { append(record.level) }
        var offset = 0
        for record in records {
            offset += record.id.utf8.count
            append(UInt16(offset))
            offset += record.name.utf8.count
            append(UInt16(offset))
        }
        for record in records {
            out.append(contentsOf: record.id.utf8)
            out.append(contentsOf: record.name.utf8)
        }
        return out
    }

    /// Decodes every record of a part (import merging, statistics).
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String) throws(IndexError) -> [PlaceRecord] {
        let view = try PlaceTileView(bytes, path: path)
        var records: [PlaceRecord] = []
        records.reserveCapacity(view.count)
        for index in 0..<view.count {
            records.append(
                PlaceRecord(
                    id: view.id(index), name: view.name(index), latitudeE7: view.latitudeE7(index),
                    longitudeE7: view.longitudeE7(index), kindCode: view.kindCode(index), level: view.level(index)))
        }
        return records
    }
}

/// Read access to one encoded part without copying it.
struct PlaceTileView {
    let bytes: UnsafeRawBufferPointer
    let count: Int
    private let longitudeBase: Int
    private let kindBase: Int
    private let levelBase: Int
    private let textEndBase: Int
    private let textBase: Int

    @inline(__always)
    init(_ bytes: UnsafeRawBufferPointer, path: String) throws(IndexError) {
        guard bytes.count >= 4 else { throw Self.corrupt(path) }
        let count = Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
        let textBase = 4 + count * PlaceTileCodec.fixedBytesPerPlace
        guard textBase <= bytes.count else { throw Self.corrupt(path) }
        self.bytes = bytes
        self.count = count
        longitudeBase = 4 + 4 * count
        kindBase = 4 + 8 * count
        levelBase = 4 + 10 * count
        textEndBase = 4 + 14 * count
        self.textBase = textBase
        if count > 0 && textBase + Int(textEnd(2 * count - 1)) != bytes.count { throw Self.corrupt(path) }
    }

    /// Bytes of id and name text in the part.
    var textByteCount: Int { bytes.count - textBase }

    /// The error for a row whose bytes do not follow the layout.
    static func corrupt(_ path: String) -> IndexError {
        IndexError(.corrupt, "a placeTile row is malformed; delete the file and rebuild it with `locsim index import`", path: path)
    }

    @inline(__always) func latitudeE7(_ index: Int) -> Int32 {
        Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 + 4 * index, as: Int32.self))
    }
    @inline(__always) func longitudeE7(_ index: Int) -> Int32 {
        Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: longitudeBase + 4 * index, as: Int32.self))
    }
    @inline(__always) func kindCode(_ index: Int) -> UInt16 {
        UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: kindBase + 2 * index, as: UInt16.self))
    }
    @inline(__always) func level(_ index: Int) -> Int32 {
        Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: levelBase + 4 * index, as: Int32.self))
    }
    @inline(__always) private func textEnd(_ slot: Int) -> Int {
        Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: textEndBase + 2 * slot, as: UInt16.self)))
    }
    @inline(__always) private func text(_ slot: Int) -> String {
        // Clamped, so a damaged row yields wrong text rather than reading outside the row.
        let limit = bytes.count - textBase
        let start = min(slot == 0 ? 0 : textEnd(slot - 1), limit)
        let end = min(max(start, textEnd(slot)), limit)
        let slice = UnsafeRawBufferPointer(rebasing: bytes[(textBase + start)..<(textBase + end)])
        return String(decoding: slice, as: UTF8.self)
    }
    @inline(__always) func id(_ index: Int) -> String { text(2 * index) }
    @inline(__always) func name(_ index: Int) -> String { text(2 * index + 1) }
    /// The UTF-8 bytes of the id followed by the name of place `index` (they are adjacent in
    /// the text), and the id's length; valid while `bytes` is.
    @inline(__always) func textSpan(_ index: Int) -> (UnsafeRawBufferPointer, Int) {
        // Clamped like `text(_:)`.
        let limit = bytes.count - textBase
        let idStart = min(index == 0 ? 0 : textEnd(2 * index - 1), limit)
        let idEnd = min(max(idStart, textEnd(2 * index)), limit)
        let nameEnd = min(max(idEnd, textEnd(2 * index + 1)), limit)
        return (UnsafeRawBufferPointer(rebasing: bytes[(textBase + idStart)..<(textBase + nameEnd)]), idEnd - idStart)
    }

    /// Checks everything a query trusts of the row, which a query checks only in part: the text
    /// ends in order within the row, latitudes sorted and coordinates in range, kind codes
    /// among `kindCount`, ids and names UTF-8 (``NearbyIndex/verifyIntegrity()``).
    ///
    /// - Throws: ``IndexError/Code/corrupt`` naming the row's `key` and what is wrong.
    func check(key: Int64, kindCount: Int, path: String) throws(IndexError) {
        func damaged(_ what: String) -> IndexError {
            IndexError(.corrupt, "placeTile row \(key): \(what); delete the file and rebuild it with `locsim index import`", path: path)
        }
        var end = 0
        for slot in 0..<(2 * count) {
            guard textEnd(slot) >= end else { throw damaged("the text of place \(slot / 2) ends before the one before it") }
            end = textEnd(slot)
        }
        var previous = Int32.min
        for index in 0..<count {
            let latitude = latitudeE7(index), longitude = longitudeE7(index)
            guard (-900_000_000...900_000_000).contains(latitude), (-1_800_000_000..<1_800_000_000).contains(longitude) else {
                throw damaged("place \(index) has a coordinate out of range")
            }
            guard latitude >= previous else { throw damaged("places are not in latitude order at place \(index)") }
            previous = latitude
            guard Int(kindCode(index)) < kindCount else { throw damaged("place \(index) has kind code \(kindCode(index)), not in placeKind") }
            guard textSpan(index).0.isValidUTF8 else { throw damaged("the id or name of place \(index) is not UTF-8") }
        }
    }

    /// First index whose latitude is ≥ `latitudeE7` (entries are sorted by latitude).
    @inline(__always) func firstIndex(latitudeAtLeast latitudeE7: Int32) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self.latitudeE7(mid) < latitudeE7 { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
