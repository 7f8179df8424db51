#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPXFormat
import LocationCore

extension ReplayPath {
    /// The route of a GeoJSON file (RFC 7946), as exported by gpsbabel, QGIS, geojson.io or a
    /// routing service: every `LineString` (one segment) and `MultiLineString` (one segment per
    /// line) of a `FeatureCollection`, a `Feature` or a bare geometry, in file order; features
    /// of other geometries (a `Point` marking a start) are skipped. Positions are `[longitude,
    /// latitude]` or `[longitude, latitude, elevation]`, WGS-84 degrees and metres.
    ///
    /// GeoJSON has no times, so the route is untimed (``GPXReplay`` walks it at its
    /// `untimedSpeed`), unless a feature's `properties.coordTimes` gives one UTC time per
    /// position, as tools converting GPX to GeoJSON write it (`@tmcw/togeojson`, QGIS).
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - source: The file's name, for messages.
    /// - Throws: ``JSONFileError`` naming the member: not JSON, not GeoJSON, no line, a
    ///   position that is not two or three numbers or not a coordinate, `coordTimes` of the wrong
    ///   length or with a time that is not one.
    /// The route of the GeoJSON file at `path` (``init(geoJSON:source:)``).
    ///
    /// - Throws: ``JSONFileError`` naming the file and the operating system's reason when it
    ///   cannot be read, else the member at fault.
    package init(geoJSONFile path: String) throws(JSONFileError) {
        let data: [UInt8]
        do {
            data = try SystemIO.readFile(path)
        } catch {
            throw JSONFileError(source: path, keyPath: nil, "cannot read the route: \(FileErrorText.reason(for: error))")
        }
        try self.init(geoJSON: data, source: path)
    }

    package init(geoJSON bytes: [UInt8], source: String) throws(JSONFileError) {
        func fail(_ keyPath: String?, _ message: String) -> JSONFileError {
            JSONFileError(source: source, keyPath: keyPath, message)
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes)
        } catch {
            throw fail(nil, error.description)
        }
        var segments: [[GPXPoint]] = []
        func positions(_ value: JSONValue?, at keyPath: String, times: [Date]?) throws(JSONFileError) -> [GPXPoint] {
            guard case .array(let items)? = value else { throw fail(keyPath, "expected a list of positions") }
            if let times, times.count != items.count {
                throw fail(keyPath, "has \(items.count) positions but properties.coordTimes has \(times.count) times")
            }
            var points: [GPXPoint] = []
            points.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                let at = "\(keyPath)[\(index)]"
                guard case .array(let numbers) = item, (2...3).contains(numbers.count),
                    let longitude = numbers[0].number, let latitude = numbers[1].number
                else { throw fail(at, "expected [longitude, latitude] or [longitude, latitude, elevation], got \(item.text)") }
                let elevation: Double?
                if numbers.count == 3 {
                    guard let value = numbers[2].number, value.isFinite else { throw fail(at, "the elevation is not a number") }
                    elevation = value
                } else {
                    elevation = nil
                }
                do {
                    let coordinate = try Coordinate(latitude: latitude, longitude: longitude)
                    points.append(GPXPoint(coordinate: coordinate, elevation: elevation, time: times?[index]))
                } catch {
                    throw fail(at, error.description)
                }
            }
            return points
        }
        func times(_ properties: JSONValue?, at keyPath: String) throws(JSONFileError) -> [Date]? {
            guard let value = properties?["coordTimes"] else { return nil }
            guard case .array(let items) = value else { throw fail("\(keyPath).properties.coordTimes", "expected a list of UTC times") }
            var times: [Date] = []
            for (index, item) in items.enumerated() {
                guard let text = item.string, let date = UTCTimestamp.parse(text) else {
                    throw fail("\(keyPath).properties.coordTimes[\(index)]", "expected a UTC time such as 2024-11-07T18:00:00Z, got \(item.text)")
                }
                times.append(date)
            }
            return times
        }
        func geometry(_ value: JSONValue, at keyPath: String, times: [Date]?) throws(JSONFileError) {
            guard let type = value["type"]?.string else { throw fail("\(keyPath).type", "missing: a GeoJSON geometry has a type") }
            switch type {
            case "LineString":
                segments.append(try positions(value["coordinates"], at: "\(keyPath).coordinates", times: times))
            case "MultiLineString":
                guard case .array(let lines)? = value["coordinates"] else {
                    throw fail("\(keyPath).coordinates", "expected a list of lines")
                }
                if times != nil, lines.count != 1 {
                    throw fail("\(keyPath).coordinates", "properties.coordTimes goes with one line, not \(lines.count)")
                }
                for (index, line) in lines.enumerated() {
                    segments.append(try positions(line, at: "\(keyPath).coordinates[\(index)]", times: times))
                }
            case "GeometryCollection":
                guard case .array(let members)? = value["geometries"] else {
                    throw fail("\(keyPath).geometries", "expected a list of geometries")
                }
                for (index, member) in members.enumerated() {
                    try geometry(member, at: "\(keyPath).geometries[\(index)]", times: nil)
                }
            case "Point", "MultiPoint", "Polygon", "MultiPolygon":
                break  // not a route: a marker or an area beside it
            default:
                throw fail("\(keyPath).type", "'\(type)' is not a GeoJSON geometry type")
            }
        }
        func feature(_ value: JSONValue, at keyPath: String) throws(JSONFileError) {
            guard let shape = value["geometry"] else { throw fail("\(keyPath).geometry", "missing") }
            if case .null = shape { return }
            try geometry(shape, at: "\(keyPath).geometry", times: try times(value["properties"], at: keyPath))
        }
        guard let type = document["type"]?.string else { throw fail("type", "missing: not a GeoJSON object") }
        switch type {
        case "FeatureCollection":
            guard case .array(let features)? = document["features"] else { throw fail("features", "expected a list of features") }
            for (index, item) in features.enumerated() { try feature(item, at: "features[\(index)]") }
        case "Feature":
            try feature(document, at: "feature")
        default:
            try geometry(document, at: "geometry", times: nil)
        }
        segments.removeAll { $0.isEmpty }
        guard !segments.isEmpty else {
            throw fail(nil, "holds no LineString or MultiLineString with positions: nothing to walk")
        }
        // Times on every position (coordTimes) make it a track, as a GPX <trk> would be.
        let timed = segments.allSatisfy { segment in segment.allSatisfy { $0.time != nil } }
        self.init(kind: timed ? .track : .route, segments: segments)
    }
}
