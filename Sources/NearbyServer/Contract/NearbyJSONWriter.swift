package import LocationCore
import LocationIndex
package import NIOCore

/// Writes the nearby answer's JSON straight from the places into the response's byte buffer: no
/// `JSONEncoder`, no intermediate `String` per field, no copy afterwards.
///
/// The body is the one place that writes JSON through a raw pointer rather than through
/// ``LocationCore/JSONWriter``: it reserves the whole body once and writes each place without a
/// capacity check (see ``appendLocations(_:)``). Strings are escaped by
/// ``LocationCore/JSONWriter/writeQuoted(utf8:to:)``, numbers written by ``LocationCore/DecimalText``
/// (Swift's shortest round-trip form, so a client's `Double` parse gives back the stored bits):
/// the same bytes ``LocationCore/JSONWriter`` writes.
///
/// ```swift
/// var writer = NearbyJSONWriter()
/// writer.appendLocations(places)   // {"locations":[{"id":"a","name":"A","lat":1.5,"lng":2,…}]}
/// ```
package struct NearbyJSONWriter: Sendable {
    /// The buffer written so far; the server sends it as the body as it is.
    package private(set) var buffer: ByteBuffer

    /// The bytes written so far (UTF-8).
    package var bytes: [UInt8] { Array(buffer.readableBytesView) }

    /// An empty writer with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// The whole body: `{"locations":[…]}`, in the given order. A place's empty `kind` and nil
    /// `level` are left out, as `NearbyLocationsResponse` expects of optional keys.
    ///
    /// The body's largest possible size is reserved once and written through one raw pointer:
    /// a `ByteBuffer` call per key, string and number (its capacity and uniqueness checks,
    /// tens of thousands per 5 km answer) cost more than the JSON itself.
    package mutating func appendLocations(_ places: [Place]) {
        var textBytes = 0
        for place in places { textBytes += place.id.utf8.count + place.name.utf8.count + place.kind.utf8.count }
        let bound = Self.bound(places: places.count, textBytes: textBytes)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { out in
            var writer = RawJSONWriter(base: out.baseAddress!)
            writer.put("{\"locations\":[")
            for (position, place) in places.enumerated() {
                var id = place.id, name = place.name, kind = place.kind
                id.withUTF8 { id in
                    name.withUTF8 { name in
                        kind.withUTF8 { kind in
                            writer.putPlace(
                                first: position == 0, id: id, name: name, coordinate: place.coordinate, kind: kind, level: place.level)
                        }
                    }
                }
            }
            writer.put("]}")
            precondition(writer.count <= bound, "the nearby body outgrew its bound")
            return writer.count
        }
    }

    /// The whole body for the index's rows, written from the query's buffers (no `String` per
    /// id or name): the same bytes ``appendLocations(_:)`` writes for the same places.
    ///
    /// The index's text is the import's UTF-8; should a damaged file hold bytes that are not,
    /// they go through `String(decoding:)` first, as ``LocationIndex/NearbyIndex/places(near:within:limit:)``
    /// takes them, so both ways write the same body.
    mutating func appendLocations(_ rows: NearbyRows) {
        // The kind names' bytes side by side, once per answer: (start, count) per code.
        var kindBytes: [UInt8] = []
        var kindSpans: [(start: Int, count: Int)] = []
        var longestKind = 0
        for name in rows.kindNames {
            kindSpans.append((kindBytes.count, name.utf8.count))
            kindBytes.append(contentsOf: name.utf8)
            longestKind = max(longestKind, name.utf8.count)
        }
        kindBytes.withUnsafeBufferPointer { kindBytes in
            appendLocations(count: rows.count, textBytes: rows.textByteCount + rows.count * longestKind) { position in
                let row = rows.row(at: position)
                let span = kindSpans[row.kindCode]
                return (
                    row.id, row.name, UnsafeBufferPointer(rebasing: kindBytes[span.start..<(span.start + span.count)]),
                    row.coordinate, row.level
                )
            }
        }
    }

    /// The whole body for `count` places whose text is held elsewhere as bytes (the index's
    /// rows, the PostGIS tiles): `row(position)` gives a place's id, name and kind as UTF-8 bytes, valid
    /// while the call runs, and `textBytes` is their total. The same bytes
    /// ``appendLocations(_:)`` writes for the same places; text that is not ASCII goes through
    /// `String(decoding:)` first, as the values would.
    package mutating func appendLocations(
        count: Int, textBytes: Int,
        row: (Int) -> (id: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>, kind: UnsafeBufferPointer<UInt8>,
            coordinate: Coordinate, level: Int?)
    ) {
        let bound = Self.bound(places: count, textBytes: textBytes)
        _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { out in
            var writer = RawJSONWriter(base: out.baseAddress!)
            writer.put("{\"locations\":[")
            for position in 0..<count {
                let place = row(position)
                if Self.isASCII(place.id), Self.isASCII(place.name), Self.isASCII(place.kind) {
                    writer.putPlace(
                        first: position == 0, id: place.id, name: place.name, coordinate: place.coordinate, kind: place.kind,
                        level: place.level)
                } else {
                    var id = String(decoding: place.id, as: UTF8.self), name = String(decoding: place.name, as: UTF8.self)
                    var kind = String(decoding: place.kind, as: UTF8.self)
                    id.withUTF8 { id in
                        name.withUTF8 { name in
                            kind.withUTF8 { kind in
                                writer.putPlace(
                                    first: position == 0, id: id, name: name, coordinate: place.coordinate, kind: kind,
                                    level: place.level)
                            }
                        }
                    }
                }
            }
            writer.put("]}")
            precondition(writer.count <= bound, "the nearby body outgrew its bound")
            return writer.count
        }
    }

    /// The largest body for `places` places with `textBytes` of ids, names and kinds: keys and
    /// punctuation, two numbers and a level each, and every text byte escaped at worst (6 bytes).
    /// Text that `String(decoding:)` repairs grows by at most 3 bytes per byte, within the 6.
    private static func bound(places: Int, textBytes: Int) -> Int {
        16 + places * (80 + 3 * DecimalText.maximumLength) + 6 * textBytes
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var any: UInt8 = 0
        for byte in bytes { any |= byte }
        return any < 0x80
    }
}

/// Writes JSON through a raw pointer into memory the caller has reserved (see
/// ``NearbyJSONWriter/appendLocations(_:)``, which bounds the size first): no capacity checks.
/// Escaping is ``LocationCore/JSONWriter``'s, numbers ``LocationCore/DecimalText``'s.
private struct RawJSONWriter {
    let base: UnsafeMutableRawPointer
    var count = 0

    init(base: UnsafeMutableRawPointer) { self.base = base }

    mutating func putByte(_ byte: UInt8) {
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    mutating func put(_ text: StaticString) {
        (base + count).copyMemory(from: text.utf8Start, byteCount: text.utf8CodeUnitCount)
        count += text.utf8CodeUnitCount
    }

    /// One place's object, `{"id":…}`, with a comma before it unless it is the first.
    mutating func putPlace(
        first: Bool, id: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>, coordinate: Coordinate,
        kind: UnsafeBufferPointer<UInt8>, level: Int?
    ) {
        put(first ? "{\"id\":" : ",{\"id\":")
        putQuoted(utf8: id)
        put(",\"name\":")
        putQuoted(utf8: name)
        put(",\"lat\":")
        putNumber(coordinate.latitude)
        put(",\"lng\":")
        putNumber(coordinate.longitude)
        if !kind.isEmpty {
            put(",\"location_type\":")
            putQuoted(utf8: kind)
        }
        if let level {
            put(",\"level\":")
            putInteger(level)
        }
        putByte(UInt8(ascii: "}"))
    }

    mutating func putNumber(_ value: Double) {
        guard value.isFinite else {
            put("null")
            return
        }
        count += DecimalText.write(value, into: UnsafeMutableRawBufferPointer(start: base + count, count: DecimalText.maximumLength))
    }

    mutating func putInteger(_ value: Int) {
        count += DecimalText.write(value, into: UnsafeMutableRawBufferPointer(start: base + count, count: DecimalText.maximumLength))
    }

    mutating func putQuoted(utf8 source: UnsafeBufferPointer<UInt8>) {
        count += JSONWriter.writeQuoted(utf8: source, to: base + count)
    }
}
