import Crypto
package import LocationCore
package import NIOCore

/// How `serve` writes a place's id: as stored, or as a UUID (`--id-format uuid`).
///
/// The game's `Location.id` is a UUID, so an app decodes a whole answer only if every id is
/// one. The bundled geodata's ids are UUIDs already and imported ids pass through unchanged;
/// a team whose own ids are not UUIDs serves them with ``uuid``, which gives each id a stable
/// name-based UUID (``PlaceUUID``).
package enum PlaceIDFormat: String, Sendable, Hashable, CaseIterable {
    /// The id as the index or database holds it.
    case stored
    /// ``PlaceUUID/uuid(for:)`` of the stored id: an id that is already a UUID unchanged, any
    /// other the name-based UUID of its text.
    case uuid
}

/// Stable name-based UUIDs for place ids: RFC 9562 version 5 (SHA-1) in locsim's namespace,
/// `8b0d0a32-d03f-5a98-afac-89869b64bdb9`, which is itself the version-5 UUID of the DNS name
/// `place-id.locsim.invalid` (a name no one owns). Python's
/// `uuid.uuid5(uuid.uuid5(uuid.NAMESPACE_DNS, "place-id.locsim.invalid"), id)` gives the same
/// (scripts/reference/place_uuid.py), so any tool can map an id to what `serve` sends.
package enum PlaceUUID {
    /// The namespace's 16 bytes.
    static let namespace: [UInt8] = [
        0x8B, 0x0D, 0x0A, 0x32, 0xD0, 0x3F, 0x5A, 0x98, 0xAF, 0xAC, 0x89, 0x86, 0x9B, 0x64, 0xBD, 0xB9,
    ]

    /// `id` unchanged when it is already a UUID (36 characters, hyphens at 8, 13, 18 and 23, hex
    /// digits elsewhere, either case); otherwise the lower-case version-5 UUID of its UTF-8.
    package static func uuid(for id: String) -> String {
        if Place.isUUID(id) { return id }
        var hasher = Insecure.SHA1()
        hasher.update(data: namespace)
        hasher.update(data: Array(id.utf8))
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x50  // version 5
        bytes[8] = bytes[8] & 0x3F | 0x80  // the RFC's variant
        return String(unsafeUninitializedCapacity: 36) { text in
            var written = 0
            func digit(_ value: UInt8) -> UInt8 { value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10 }
            for (position, byte) in bytes.enumerated() {
                switch position {
                case 4, 6, 8, 10:
                    text[written] = UInt8(ascii: "-")
                    written += 1
                default: break
                }
                text[written] = digit(byte >> 4)
                text[written + 1] = digit(byte & 0x0F)
                written += 2
            }
            return written
        }
    }
}

/// A repository whose places carry ``PlaceUUID/uuid(for:)`` of their ids: what `serve
/// --id-format uuid` puts in front of its backend, so the nearby answers and the players' map
/// screens all see the same ids. Health is the backend's. The body is written from the places
/// (not the backend's own bytes), so answers cost a little more than with stored ids.
package struct UUIDIdentifiedRepository: NearbyServing {
    package let base: any LocationRepository

    package init(base: any LocationRepository) {
        self.base = base
    }

    package func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        Self.identified(try await base.fetchNearby(center: center, radius: radius))
    }

    package func fetchNearby(center: Coordinate, radius: Double, limit: Int?) async throws -> [Place] {
        Self.identified(try await base.fetchNearby(center: center, radius: radius, limit: limit))
    }

    package func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int) {
        let places = try await fetchNearby(center: center, radius: radius, limit: limit)
        var writer = NearbyJSONWriter(capacity: 0)
        writer.appendLocations(places)
        return (writer.buffer, places.count)
    }

    package func healthProblem() async -> String? {
        await (base as? any NearbyServing)?.healthProblem()
    }

    package func healthWarnings() async -> [String] {
        await (base as? any NearbyServing)?.healthWarnings() ?? []
    }

    package func backendGauges() -> [BackendGauge] {
        (base as? any NearbyServing)?.backendGauges() ?? []
    }

    private static func identified(_ places: [Place]) -> [Place] {
        places.map { place in
            var place = place
            place.id = PlaceUUID.uuid(for: place.id)
            return place
        }
    }
}
