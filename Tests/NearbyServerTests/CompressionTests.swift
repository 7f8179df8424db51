import Foundation
import HTTPTypes
import Hummingbird
import LocationCore
import LocationIndex
import LocSimTestHelpers
@testable import NearbyServer
import NIOCore
import Testing

/// gzip when the client accepts it, checked by an independent decoder (the system's `gzip -d`).
@Suite(.timeLimit(.minutes(1))) struct CompressionTests {
    /// `bytes` through `gzip -dc`, from a file of its own.
    static func gunzip(_ bytes: Data) async throws -> String {
        try await withScratchFolder("locsim-gzip") { folder in
            let path = folder + "/body.gz"
            try bytes.write(to: URL(fileURLWithPath: path))
            let outcome = try await ChildProcess.run(["/bin/gzip", "-dc", path])
            guard outcome.status == 0 else { throw HarnessError("gzip -dc: \(outcome.termination): \(outcome.errors)") }
            return outcome.output
        }
    }

    static let acceptEncoding = HTTPField.Name("Accept-Encoding")!

    @Test("A 5 km answer asked with Accept-Encoding: gzip is gzip, says so and Vary, and decompresses to exactly the plain body")
    func nearbyGzip() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        let uri = nearbyURI(TestIndex.tokyo, radius: 5_000)
        try await server.test(.router) { client in
            let plain = try await client.execute(uri: uri, method: .get)
            #expect(plain.status == .ok)
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(plain.headers[.vary] == "Accept-Encoding")
            let body = String(decoding: plain.bytes, as: UTF8.self)
            #expect(try plain.decodePlaces().count > 100)
            let zipped = try await client.execute(uri: uri, method: .get, headers: [Self.acceptEncoding: "gzip, deflate, br"])
            #expect(zipped.status == .ok)
            #expect(zipped.headers[.contentEncoding] == "gzip")
            #expect(zipped.headers[.vary] == "Accept-Encoding")
            #expect(zipped.headers[.contentType] == "application/json")
            #expect(zipped.headers[.contentLength] == String(zipped.body.readableBytes))
            // The gzip magic number, and a body much smaller than the plain one.
            #expect(Array(zipped.bytes.prefix(2)) == [0x1F, 0x8B])
            #expect(zipped.bytes.count * 3 < plain.bytes.count)
            #expect(try await Self.gunzip(zipped.bytes) == body)
            // HEAD: the same headers as the GET, no body.
            let head = try await client.execute(uri: uri, method: .head, headers: [Self.acceptEncoding: "gzip"])
            #expect(head.headers[.contentEncoding] == "gzip")
            #expect(head.headers[.contentLength] == zipped.headers[.contentLength])
            #expect(head.body.readableBytes == 0)
            print("CompressionTests: 5 km answer over the test index: \(plain.bytes.count) bytes plain, \(zipped.bytes.count) gzipped")
        }
    }

    @Test("Without gzip accepted, or for a small body, the answer is plain; small bodies carry no Vary")
    func plainWhenNotAccepted() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.router) { client in
            let big = nearbyURI(TestIndex.tokyo, radius: 5_000)
            for refusing in ["identity", "gzip;q=0", "br, deflate", "*;q=0", "gzip;q=0, *"] {
                let response = try await client.execute(uri: big, method: .get, headers: [Self.acceptEncoding: refusing])
                #expect(response.headers[.contentEncoding] == nil, "\(refusing)")
                #expect(response.headers[.vary] == "Accept-Encoding")
                #expect(try response.decodePlaces().count > 100)
            }
            // One place: a body of a few hundred bytes, not worth compressing.
            let small = try await client.execute(
                uri: nearbyURI(TestIndex.tokyo, radius: 5_000, limit: 1), method: .get, headers: [Self.acceptEncoding: "gzip"])
            #expect(small.body.readableBytes < ResponseCompression.minimumBytes)
            #expect(small.headers[.contentEncoding] == nil)
            #expect(small.headers[.vary] == nil)
            #expect(try small.decodePlaces().count == 1)
            // Errors are small JSON: plain.
            let error = try await client.execute(uri: "/locations/nearby?lat=x", method: .get, headers: [Self.acceptEncoding: "gzip"])
            #expect(error.status == .badRequest)
            #expect(error.headers[.contentEncoding] == nil)
        }
    }

    @Test("Accept-Encoding as RFC 9110 reads it: gzip or x-gzip or *, any case, weights above 0", arguments: [
        ("gzip", true), ("GZIP", true), ("x-gzip", true), ("deflate, gzip;q=0.5", true), ("gzip ; q=1.0", true),
        ("*", true), ("br, *;q=0.1", true), (" gzip\t", true),
        ("", false), ("identity", false), ("gzip;q=0", false), ("gzip;q=0.000", false), ("*;q=0", false),
        ("gzip;q=0, *", false), ("gzip;q=x", false), ("gzipx", false), ("br, deflate", false),
    ])
    func acceptEncoding(value: String, accepts: Bool) {
        #expect(ResponseCompression.acceptsGzip(value) == accepts)
    }

    @Test("No Accept-Encoding at all: plain")
    func noHeader() {
        #expect(!ResponseCompression.acceptsGzip(nil))
    }
}
