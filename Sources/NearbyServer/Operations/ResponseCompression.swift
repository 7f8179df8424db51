import CompressNIO
import HTTPTypes
import NIOCore

/// gzip for answers whose client accepts it (`Accept-Encoding: gzip`): a 5 km answer in Tokyo is
/// about 320 KB of JSON, a few tens of KB gzipped.
///
/// Only whole bodies of at least ``minimumBytes`` are compressed (a small one gains nothing worth
/// the work); each such answer says `Vary: Accept-Encoding`, compressed or not, so a cache keeps
/// the two apart. Streams (Server-Sent Events) are left alone.
struct ResponseCompression: Sendable {
    /// Bodies shorter than this are sent as they are.
    static let minimumBytes = 1_024

    /// zlib's level: 1, the fastest. On the 5 km Tokyo answer (319,635 bytes) it gives 71,801
    /// bytes in about 2.3 ms of one core on the development machine, where the default level (6)
    /// gives 52,715 in 7.4 ms: the server's request rate is what the benchmarks watch.
    static var configuration: ZlibConfiguration { ZlibConfiguration(compressionLevel: .fastestCompression) }

    /// Whether an `Accept-Encoding` value admits gzip (RFC 9110, 12.5.3): `gzip` (or `x-gzip`)
    /// listed with a weight above 0, or `*` above 0 with gzip not refused by name.
    static func acceptsGzip(_ acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        var gzip: Bool?
        var any: Bool?
        for member in acceptEncoding.split(separator: ",") {
            let parameters = member.split(separator: ";").map(trimmed)
            guard let coding = parameters.first?.lowercased(), !coding.isEmpty else { continue }
            let admitted = parameters.dropFirst().allSatisfy { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1).map(trimmed)
                guard pair.count == 2, pair[0].lowercased() == "q" else { return true }
                // A weight that is not a number admits nothing, as if it were 0.
                return (Double(pair[1]) ?? 0) > 0
            }
            switch coding {
            case "gzip", "x-gzip": gzip = admitted
            case "*": any = admitted
            default: break
            }
        }
        return gzip ?? any ?? false
    }

    /// The gzip member (RFC 1952) of `body`'s readable bytes.
    ///
    /// - Throws: `CompressNIOError` when zlib fails (out of memory).
    static func gzip(_ body: ByteBuffer, allocator: ByteBufferAllocator = ByteBufferAllocator()) throws -> ByteBuffer {
        var input = body
        return try input.compress(with: .gzip, configuration: configuration, allocator: allocator)
    }
}

/// `text` without the optional white space around it (RFC 9110, 5.6.3: spaces and tabs).
private func trimmed(_ text: Substring) -> Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
        return ""
    }
    return text[first...last]
}
