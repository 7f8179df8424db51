package import LocationCore

/// One nearby answer as the query left it, nearest first (ties by id), read in place from the
/// query's buffers: for a writer that copies ids and names straight into its output instead of
/// making a `String` of each (the nearby server's JSON).
///
/// Valid only inside the closure given to ``NearbyIndex/withNearbyRows(near:within:limit:_:)``:
/// the buffers belong to the read connection, which the next query reuses.
///
/// ```swift
/// let count = try index.withNearbyRows(near: center, within: 5_000) { rows in
///     for position in 0..<rows.count {
///         let row = rows.row(at: position)
///         write(row.id, row.coordinate)
///     }
///     return rows.count
/// }
/// ```
package struct NearbyRows {
    private let hits: UnsafeBufferPointer<ReadConnection.Hit>
    private let order: UnsafeBufferPointer<Int32>
    private let text: UnsafeBufferPointer<UInt8>
    private let kinds: [String]

    init(hits: UnsafeBufferPointer<ReadConnection.Hit>, order: UnsafeBufferPointer<Int32>, text: UnsafeBufferPointer<UInt8>, kinds: [String]) {
        self.hits = hits
        self.order = order
        self.text = text
        self.kinds = kinds
    }

    /// The places in the answer (after the limit).
    package var count: Int { order.count }

    @inline(__always)
    private func hit(_ position: Int) -> ReadConnection.Hit { hits[Int(order[position])] }

    /// Everything of one row at once.
    package func row(at position: Int) -> NearbyRow {
        let hit = hit(position)
        let start = Int(hit.textStart), nameStart = start + Int(hit.idLength)
        return NearbyRow(
            id: UnsafeBufferPointer(rebasing: text[start..<nameStart]),
            name: UnsafeBufferPointer(rebasing: text[nameStart..<(nameStart + Int(hit.nameLength))]),
            coordinate: Coordinate(uncheckedLatitude: hit.latitude, longitude: hit.longitude), kindCode: Int(hit.kindCode),
            level: hit.level == PlaceRecord.noLevel ? nil : Int(hit.level), distance: hit.distance)
    }

    /// The kind names by ``NearbyRow/kindCode`` (every code in these rows has one).
    package var kindNames: [String] { kinds }

    /// Bytes of every id and name in the answer together.
    package var textByteCount: Int {
        var total = 0
        for position in order { total += Int(hits[Int(position)].idLength) + Int(hits[Int(position)].nameLength) }
        return total
    }

    /// The row as a ``NearbyPlace`` (the one place rows become values).
    package func place(at position: Int) -> NearbyPlace {
        let hit = hit(position)
        let start = Int(hit.textStart), nameStart = start + Int(hit.idLength)
        return NearbyPlace(
            place: Place(
                id: String(decoding: UnsafeBufferPointer(rebasing: text[start..<nameStart]), as: UTF8.self),
                name: String(decoding: UnsafeBufferPointer(rebasing: text[nameStart..<(nameStart + Int(hit.nameLength))]), as: UTF8.self),
                coordinate: Coordinate(uncheckedLatitude: hit.latitude, longitude: hit.longitude), kind: kinds[Int(hit.kindCode)],
                level: hit.level == PlaceRecord.noLevel ? nil : Int(hit.level)),
            distance: hit.distance)
    }
}

/// One row of ``NearbyRows``: its text still in the query's buffers.
package struct NearbyRow {
    /// The id's and the name's bytes as stored (UTF-8 from the import's strings).
    package var id: UnsafeBufferPointer<UInt8>
    package var name: UnsafeBufferPointer<UInt8>
    /// The coordinate, as ``NearbyIndex/places(near:within:limit:)`` gives it.
    package var coordinate: Coordinate
    /// The kind, an index into ``NearbyRows/kindNames``.
    package var kindCode: Int
    /// The level, or nil.
    package var level: Int?
    /// Great-circle distance from the query centre, metres.
    package var distance: Double
}
