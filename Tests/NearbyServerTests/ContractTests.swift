import Foundation
import HTTPTypes
import Hummingbird
import LocationCore
import LocationIndex
import LocSimTestHelpers
import MapFeature
@testable import NearbyServer
import NIOCore
import Testing

/// The game's contract through Hummingbird's in-process `.router` test client: the same body the
/// index gives, decoded by the app's own `NearbyLocationsResponse`.
@Suite(.timeLimit(.minutes(1))) struct ContractTests {
    /// Query points and radii: the city at 1 m to 250 km, both poles, both sides of ±180°.
    static let queries: [(latitude: Double, longitude: Double, radius: Double)] = {
        var rows: [(Double, Double, Double)] = []
        for radius in [1.0, 7.5, 100, 1_000, 5_000, 50_000, 250_000] { rows.append((35.6812, 139.7671, radius)) }
        for radius in [1.0, 1_000, 100_000, 250_000] {
            rows.append((90, 0, radius))
            rows.append((-90, 123.4, radius))
            rows.append((89.99, -45, radius))
            rows.append((-16.5, 180, radius))
            rows.append((-16.5, -180, radius))
            rows.append((-16.2, 179.9, radius))
        }
        return rows
    }()

    @Test("Answers equal NearbyIndex: nearest first, ties by id, poles, antimeridian, 1 m to 250 km")
    func answersEqualTheIndex() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(maximumRadius: 250_000), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.router) { client in
            var nonEmpty = 0
            for query in Self.queries {
                let center = try Coordinate(latitude: query.latitude, longitude: query.longitude)
                let expected = try places.index.places(near: center, within: query.radius).map(\.place)
                if !expected.isEmpty { nonEmpty += 1 }
                try await client.execute(uri: nearbyURI(center, radius: query.radius), method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/json")
                    let answered = try response.decodePlaces()
                    #expect(answered == expected, "\(query)")
                }
            }
            // The rows exercise something: most find places.
            #expect(nonEmpty > Self.queries.count / 2)
        }
    }

    @Test("The body written from the index's rows is byte for byte the one written from its places")
    func rowsBodyEqualsPlacesBody() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let repository = OfflineLocationRepository(index: places.index)
        // The awkward names (escapes, non-ASCII, kinds) lie within 60 m of Tokyo.
        let queries = Self.queries + [(latitude: TestIndex.tokyo.latitude, longitude: TestIndex.tokyo.longitude, radius: 60.0)]
        var compared = 0
        for query in queries {
            let center = try Coordinate(latitude: query.latitude, longitude: query.longitude)
            for limit in [nil, 3] as [Int?] {
                let expected = try places.index.places(near: center, within: query.radius, limit: limit).map(\.place)
                var writer = NearbyJSONWriter()
                writer.appendLocations(expected)
                let (body, count) = try await repository.nearbyBody(near: center, within: query.radius, limit: limit)
                #expect(Array(body.readableBytesView) == writer.bytes, "\(query) limit \(String(describing: limit))")
                #expect(count == expected.count)
                compared += expected.count
            }
        }
        #expect(compared > 1_000)
    }

    @Test("Without radius the game's 5,000 m; limit keeps the nearest N; ties by id")
    func defaultsAndLimit() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        let center = TestIndex.tokyo
        let all = try places.index.places(near: center, within: NearbyQuery.defaultRadius).map(\.place)
        try await server.test(.router) { client in
            let answered = try await client.execute(uri: nearbyURI(center), method: .get) { try $0.decodePlaces() }
            #expect(answered == all)
            #expect(answered.count > 100)
            // The two places at the centre come first, in id order.
            #expect(answered.prefix(2).map(\.id) == ["tie-a", "tie-b"])
            for limit in [1, 2, 17] {
                let limited = try await client.execute(uri: nearbyURI(center, limit: limit), method: .get) { try $0.decodePlaces() }
                #expect(limited == Array(all.prefix(limit)))
            }
            // A percent-encoded name is the parameter it decodes to (as a value is).
            let encoded = "/locations/nearby?l%61t=\(center.latitude)&%6Cng=\(center.longitude)&limi%74=2"
            #expect(try await client.execute(uri: encoded, method: .get) { try $0.decodePlaces() } == Array(all.prefix(2)))
            // Parameters of no concern to the contract (a cache buster, an app's version) are let be.
            let other = nearbyURI(center, limit: 2) + "&_=1733300000&v=2.1&radius_unit=m"
            #expect(try await client.execute(uri: other, method: .get) { try $0.decodePlaces() } == Array(all.prefix(2)))
        }
    }

    @Test("Optional keys are left out when absent, and awkward names survive the trip")
    func optionalKeysAndEscaping() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.router) { client in
            try await client.execute(uri: nearbyURI(TestIndex.tokyo, radius: 60), method: .get) { response in
                let body = String(decoding: response.bytes, as: UTF8.self)
                let decoded = try response.decodePlaces()
                let awkward = places.places.filter { $0.id.hasPrefix("awkward-") }
                // (The index keeps coordinates at 1e-7°, so compare what the index stores: id, name, kind.)
                #expect(awkward.count == 7)
                for place in awkward {
                    #expect(decoded.contains { $0.id == place.id && $0.name == place.name && $0.kind == place.kind }, "\(place.name)")
                }
                // Each object has location_type exactly when kind is set, level when level is set.
                let objects = try #require(JSONSerialization.jsonObject(with: response.bytes) as? [String: [[String: Any]]])
                for (object, place) in zip(objects["locations"] ?? [], decoded) {
                    #expect((object["location_type"] != nil) == !place.kind.isEmpty)
                    #expect((object["level"] != nil) == (place.level != nil))
                }
                #expect(!body.contains("null"))
            }
        }
    }

    /// Bad queries and the parameter each must name.
    static let badQueries: [(query: String, parameter: String)] = [
        ("", "lat"), ("lng=139", "lat"), ("lat=&lng=1", "lat"), ("lat=abc&lng=1", "lat"), ("lat=nan&lng=1", "lat"),
        ("lat=NaN&lng=1", "lat"), ("lat=inf&lng=1", "lat"), ("lat=-Infinity&lng=1", "lat"), ("lat=91&lng=1", "lat"),
        ("lat=-90.0001&lng=1", "lat"), ("lat=1e400&lng=1", "lat"), ("lat=0x10&lng=1", "lat"), ("lat=1&lat=2&lng=1", "lat"),
        ("lat=%2035&lng=1", "lat"), ("lat=35", "lng"), ("lat=35&lng=", "lng"), ("lat=35&lng=181", "lng"),
        ("lat=35&lng=-180.5", "lng"), ("lat=35&lng=inf", "lng"), ("lat=35&lng=1,5", "lng"), ("lat=35&lng=1&radius=", "radius"),
        ("lat=35&lng=1&radius=0", "radius"), ("lat=35&lng=1&radius=0.5", "radius"), ("lat=35&lng=1&radius=-5", "radius"),
        ("lat=35&lng=1&radius=nan", "radius"), ("lat=35&lng=1&radius=inf", "radius"), ("lat=35&lng=1&radius=50000.001", "radius"),
        ("lat=35&lng=1&radius=1e9", "radius"), ("lat=35&lng=1&radius=5km", "radius"), ("lat=35&lng=1&limit=0", "limit"),
        ("lat=35&lng=1&limit=-1", "limit"), ("lat=35&lng=1&limit=1.5", "limit"), ("lat=35&lng=1&limit=abc", "limit"),
        ("lat=35&lng=1&limit=", "limit"), ("lat=35&lng=1&limit=1000001", "limit"),
        ("lat=35&lng=1&limit=99999999999999999999999", "limit"), ("lat=35&lng=1&limit=1&limit=2", "limit"),
        // A name surely meant as the contract's own is not dropped in silence: other letter case, or lon for lng.
        ("lat=35&lng=1&LIMIT=1", "limit"), ("Lat=35&lng=1", "lat"), ("lat=35&lon=139", "lng"), ("latitude=35&lng=1", "lat"),
        ("lat=35&lng=1&Radius=100", "radius"), ("lat=35&longitude=1", "lng"),
    ]

    @Test("Every bad parameter is a 400 with a JSON body naming it", arguments: badQueries)
    func badRequest(query: String, parameter: String) async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.router) { client in
            try await client.execute(uri: "/locations/nearby?" + query, method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.contentType] == "application/json")
                let error = try response.decodeError()
                #expect(error.code == "bad_request")
                #expect(error.parameter == parameter)
                #expect(error.message.contains(parameter))
            }
        }
        // The app's own client reads the same parameter out of the body.
        #expect(server.state.audit.records.isEmpty, "a bad request is not audited")
    }

    @Test("A 60 KB bad value is echoed as a short excerpt, control characters escaped, not whole")
    func hugeBadValue() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        let huge = "1" + String(repeating: "x", count: 60_000)
        try await server.test(.router) { client in
            for (query, parameter) in [("lat=\(huge)&lng=0", "lat"), ("lat=0&lng=0&limit=%0A\(huge)", "limit")] {
                try await client.execute(uri: "/locations/nearby?" + query, method: .get) { response in
                    #expect(response.status == .badRequest)
                    let error = try response.decodeError()
                    #expect(error.parameter == parameter)
                    #expect(error.message.count < 200, "\(error.message.count) characters")
                    #expect(error.message.hasSuffix("…") || error.message.hasSuffix("…'"), "\(error.message)")
                    #expect(!error.message.contains("\n"))
                }
            }
        }
    }

    @Test("A value whose escapes are no UTF-8 text is echoed as sent (%ff), not as a replacement character")
    func undecodableValueEchoedAsSent() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.router) { client in
            for (query, parameter, shown) in [("lat=%ff&lng=0", "lat", "%ff"), ("lat=0&lng=1%C3", "lng", "1%C3"), ("l%61t=35&lng=0&limit=%E3%81", "limit", "%E3%81")] {
                try await client.execute(uri: "/locations/nearby?" + query, method: .get) { response in
                    #expect(response.status == .badRequest)
                    let error = try response.decodeError()
                    #expect(error.parameter == parameter)
                    #expect(error.message.contains(shown), "\(error.message)")
                    #expect(!error.message.contains("\u{FFFD}"), "\(error.message)")
                }
            }
            // Decodable escapes still decode: %33%35 is 35.
            try await client.execute(uri: "/locations/nearby?lat=%33%35.68&lng=139.76", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("Unknown paths are 404 and wrong methods 405 (with Allow), as JSON")
    func notFoundAndMethod() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.router) { client in
            for path in ["/", "/locations", "/LOCATIONS/NEARBY", "/nearby?lat=1&lng=2", "/locations/nearby/more"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .notFound, "\(path)")
                    let error = try response.decodeError()
                    #expect(error.code == "not_found")
                }
            }
            // Hummingbird's router matches a path whatever its trailing slash, as most do.
            try await client.execute(uri: "/locations/nearby/?lat=35.68&lng=139.76", method: .get) { response in
                #expect(response.status == .ok)
            }
            for method: HTTPRequest.Method in [.post, .put, .delete, .patch] {
                try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: method) { response in
                    #expect(response.status == .methodNotAllowed, "\(method)")
                    #expect(response.headers[.allow] == "GET, HEAD")
                    let error = try response.decodeError()
                    #expect(error.code == "method_not_allowed")
                }
            }
        }
    }

    @Test("A backend failure is a 503 with Retry-After, and the reason goes to the log, not the body")
    func backendFailure() async throws {
        // A real upstream that is not there: the HTTP repository pointed at a port nobody listens on.
        try await LoopbackSocket.withRefusingPort { port in
            let upstream = try HTTPLocationRepository(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: "upstream-secret")
            let log = LogLines()
            let server = makeServer(try NearbyServer.Configuration(), repository: upstream, log: log)
            try await server.test(.router) { client in
                try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.retryAfter] == "1")
                    let error = try response.decodeError()
                    #expect(error.code == "unavailable")
                    #expect(!error.message.contains("\(port)"))
                }
                // The server is still there.
                try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            }
            #expect(log.all.first?.contains("error: ") == true)
            #expect(log.all.first?.contains("127.0.0.1:\(port)") == true)
        }
    }

    @Test("The nearby body escapes exactly like JSONWriter, and JSONWriter writes shortest round-trip numbers")
    func bodyMatchesJSONWriter() {
        var samples = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["", "plain", "東京駅", "🚉 emoji", "mixed \"q\" \\ \u{0} end", "\u{2028}\u{2029}", "é" + "\u{301}"]
        for sample in samples {
            // The body writer (a raw pointer into reserved memory) escapes as JSONWriter does.
            var body = NearbyJSONWriter()
            body.appendLocations([Place(id: sample, name: sample, coordinate: TestIndex.tokyo, kind: sample, level: -3)])
            let expected = "{\"locations\":[{\"id\":\(JSONWriter.quoted(sample)),\"name\":\(JSONWriter.quoted(sample)),\"lat\":"
                + "\(TestIndex.tokyo.latitude),\"lng\":\(TestIndex.tokyo.longitude)"
                + (sample.isEmpty ? "" : ",\"location_type\":\(JSONWriter.quoted(sample))") + ",\"level\":-3}]}"
            #expect(String(decoding: body.bytes, as: UTF8.self) == expected)
            // The writer over text held elsewhere as bytes (the PostGIS tiles') writes what the
            // one over values writes, invalid UTF-8 included (repaired as String(decoding:) does).
            for bytes in [Array(sample.utf8), Array(sample.utf8) + [0xFF, 0x41], [0xC3]] {
                let text = String(decoding: bytes, as: UTF8.self)
                let values = [
                    Place(id: text, name: text, coordinate: TestIndex.tokyo, kind: text, level: -3),
                    Place(id: "b" + text, name: "", coordinate: TestIndex.tokyo, kind: "", level: nil),
                ]
                var fromValues = NearbyJSONWriter()
                fromValues.appendLocations(values)
                var fromBytes = NearbyJSONWriter()
                let second = [UInt8(ascii: "b")] + bytes
                bytes.withUnsafeBufferPointer { bytes in
                    second.withUnsafeBufferPointer { second in
                        let empty = UnsafeBufferPointer(rebasing: second[0..<0])
                        fromBytes.appendLocations(count: 2, textBytes: 3 * bytes.count + second.count) { position in
                            position == 0
                                ? (bytes, bytes, bytes, TestIndex.tokyo, -3) : (second, empty, empty, TestIndex.tokyo, nil)
                        }
                    }
                }
                #expect(fromBytes.bytes == fromValues.bytes, "\(bytes)")
            }
        }
        var random = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let value = Double(bitPattern: random.next())
            guard value.isFinite else { continue }
            var writer = JSONWriter()
            writer.number(value)
            let text = writer.text
            #expect(Double(text)?.bitPattern == value.bitPattern, "\(text)")
            // RFC 8259's number grammar (Foundation's JSON reader on Linux does not round correctly,
            // so the grammar is checked here and the value by Double(String) above).
            #expect(text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/) != nil, "\(text)")
        }
    }

    @Test("GET /openapi.json: the OpenAPI 3 document, without the token, naming every route the server has")
    func openAPIDocument() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(token: "t0ken-value"), repository: OfflineLocationRepository(index: places.index))
        let response = try await server.test(.router) { try await $0.execute(uri: "/openapi.json", method: .get) }
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/json")
        let document = try #require(try JSONSerialization.jsonObject(with: response.bytes) as? [String: Any])
        #expect((document["openapi"] as? String)?.hasPrefix("3.") == true)
        let paths = try #require(document["paths"] as? [String: Any])
        let routes = server.routeTable.routes
        #expect(routes.count == 6)
        for route in routes {
            let operations = paths[route.path] as? [String: Any]
            #expect(operations != nil, "\(route.path) is not in the document")
            for method in route.methods {
                #expect(operations?[method.rawValue.lowercased()] != nil, "\(method) \(route.path) is not in the document")
            }
        }
    }
}

