#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// The lines of a KML file, as Google Earth, Google My Maps and gpsbabel (`-o kml`) write a route
/// or a recorded walk: every `gx:Track` (its `when` times paired with its `gx:coord` positions,
/// `lon lat [alt]`), or, in a file without one, every `LineString` (its `coordinates`,
/// `lon,lat[,alt]` tuples, untimed), in file order, one segment each, inside folders, placemarks
/// and `MultiGeometry` alike. A file with tracks usually draws the same walk as a `LineString`
/// beside them (gpsbabel does), so its lines are left out then. A placemark's `Point` is a marker
/// and skipped. Read with the GPX reader's XML scanner (streamed,
/// bounded, UTF-8/UTF-16/Latin-1), so errors name the file, line and column the same way.
package struct KMLLines: Sendable {
    /// The lines, in file order.
    package var segments: [[GPXPoint]]
    /// Whether the lines are `gx:Track`s, whose points carry times (else every one is untimed).
    package var isTimed: Bool

    /// Reads the file at `path`.
    ///
    /// - Throws: ``GPXParseError`` naming the file, line and column: XML that is not well formed,
    ///   a root other than `<kml>`, a coordinate or time that is not one, a track whose `when`s
    ///   and `gx:coord`s do not pair up, no line at all.
    package init(contentsOfFile path: String) throws(GPXParseError) {
        let scanner: XMLScanner
        do {
            scanner = try XMLScanner(path: path)
        } catch {
            throw GPXReader.ioError(error, file: path)
        }
        try self.init(scanner: scanner, file: path)
    }

    /// Reads KML text held in memory (`source` names it in errors).
    package init(bytes: [UInt8], source: String?) throws(GPXParseError) {
        try self.init(scanner: XMLScanner(bytes: bytes, readsDeclaration: true), file: source)
    }

    private init(scanner: XMLScanner, file: String?) throws(GPXParseError) {
        var reader = Reader(scanner: scanner, file: file)
        try reader.read()
        guard !reader.tracks.isEmpty || !reader.segments.isEmpty else {
            throw GPXParseError(.notKML, file: file, line: 0, column: 0, message: "no LineString or gx:Track in the file: nothing to walk")
        }
        isTimed = !reader.tracks.isEmpty
        segments = isTimed ? reader.tracks : reader.segments
    }

    private struct Reader {
        let scanner: XMLScanner
        let file: String?
        /// The open elements' names, as written (with any prefix).
        var open: [String] = []
        var rootSeen = false
        /// The text of the element being captured (`coordinates`, `when`, `coord`), and its depth.
        var text: [UInt8] = []
        var captureDepth: Int?
        var line: [GPXPoint] = []
        var times: [Date] = []
        var positions: [(coordinate: Coordinate, elevation: Double?)] = []
        /// The `LineString`s and the `gx:Track`s.
        var segments: [[GPXPoint]] = []
        var tracks: [[GPXPoint]] = []

        init(scanner: XMLScanner, file: String?) {
            self.scanner = scanner
            self.file = file
        }

        static func local(_ name: String) -> Substring { name.split(separator: ":").last ?? Substring(name) }

        func error(_ code: GPXParseError.Code, _ message: String, at position: Int) -> GPXParseError {
            scanner.parseError(code, message, at: position, file: file)
        }

        func errorAtCapture(_ code: GPXParseError.Code, _ message: String) -> GPXParseError {
            let at = scanner.location(of: .capture)
            return GPXParseError(code, file: file, line: at.line, column: at.column, message: message)
        }

        mutating func read() throws(GPXParseError) {
            while true {
                let token: XMLScanner.Token
                do {
                    token = try scanner.next()
                } catch {
                    throw scanner.parseError(error, file: file, format: "KML", fileExtension: "kml")
                }
                switch token {
                case .startTag:
                    try start()
                    if scanner.selfClosing { try end() }
                case .endTag: try end()
                case .text: try handleText()
                case .end:
                    if let inside = open.last {
                        let at = scanner.endLocation
                        throw GPXParseError(.truncated, file: file, line: at.line, column: at.column, message: "input ended inside <\(inside)>")
                    }
                    guard rootSeen else {
                        let at = scanner.endLocation
                        throw GPXParseError(.truncated, file: file, line: at.line, column: at.column, message: "no <kml> element found")
                    }
                    return
                }
            }
        }

        mutating func start() throws(GPXParseError) {
            let name = scanner.string(scanner.nameStart, scanner.nameEnd)
            let local = Self.local(name)
            if open.isEmpty {
                guard !rootSeen else { throw error(.malformedXML, "content after the end of <kml>", at: scanner.tokenStart) }
                guard local == "kml" else { throw error(.notKML, "the root element is <\(name)>, not <kml>", at: scanner.tokenStart) }
                rootSeen = true
            }
            let parent = open.last.map(Self.local)
            open.append(name)
            let captured =
                switch (parent, local) {
                case ("LineString", "coordinates"), ("Track", "when"), ("Track", "coord"): true
                default: false
                }
            if captured {
                captureDepth = open.count
                text.removeAll(keepingCapacity: true)
                scanner.mark(.capture, at: scanner.tokenStart)
            }
            if local == "Track" {
                times = []
                positions = []
            }
        }

        mutating func handleText() throws(GPXParseError) {
            if captureDepth == open.count {
                do {
                    try scanner.appendText(into: &text)
                } catch {
                    throw scanner.parseError(error, file: file, format: "KML", fileExtension: "kml")
                }
                guard text.count <= scanner.maximumTokenLength else {
                    throw errorAtCapture(.limitExceeded, "an element whose text is longer than \(XMLScanner.describeBytes(scanner.maximumTokenLength)) starts here")
                }
            } else if open.isEmpty, !scanner.textIsCDATA {
                let bytes = scanner.bytes(scanner.textStart, scanner.textEnd)
                if let offset = bytes.firstIndex(where: { !$0.isASCIIWhitespace }) {
                    throw error(.malformedXML, "text outside the <kml> element", at: scanner.textStart + offset)
                }
            }
        }

        mutating func end() throws(GPXParseError) {
            let name = scanner.string(scanner.nameStart, scanner.nameEnd)
            guard let top = open.last else { throw error(.malformedXML, "end tag without a matching start tag", at: scanner.tokenStart) }
            guard top == name else { throw error(.malformedXML, "</\(name)> does not close <\(top)>", at: scanner.tokenStart) }
            let local = Self.local(name)
            if captureDepth == open.count {
                captureDepth = nil
                switch local {
                case "coordinates": line += try tuples()
                case "when":
                    let value = String(decoding: text.drop(while: \.isASCIIWhitespace).reversed().drop(while: \.isASCIIWhitespace).reversed(), as: UTF8.self)
                    guard let time = UTCTimestamp.parse(value) else {
                        throw errorAtCapture(.invalidTime, "<when> is not an ISO 8601 time: \"\(value.prefix(60))\"")
                    }
                    times.append(time)
                default:
                    let fields = text.split(whereSeparator: \.isASCIIWhitespace)
                    guard fields.count == 2 || fields.count == 3 else {
                        throw errorAtCapture(.invalidCoordinate, "<gx:coord> must be \"lon lat [alt]\", got \"\(String(decoding: text, as: UTF8.self).prefix(60))\"")
                    }
                    positions.append(try position(fields.map { String(decoding: $0, as: UTF8.self) }, what: "<gx:coord>"))
                }
            }
            switch local {
            case "LineString":
                if !line.isEmpty { segments.append(line) }
                line = []
            case "Track":
                guard times.count == positions.count else {
                    throw error(
                        .malformedXML, "a gx:Track with \(times.count) <when> and \(positions.count) <gx:coord>: they must pair up",
                        at: scanner.tokenStart)
                }
                if !positions.isEmpty {
                    tracks.append(zip(times, positions).map { GPXPoint(coordinate: $1.coordinate, elevation: $1.elevation, time: $0) })
                }
            default: break
            }
            open.removeLast()
        }

        /// The captured `coordinates`: `lon,lat[,alt]` tuples separated by white space.
        func tuples() throws(GPXParseError) -> [GPXPoint] {
            var points: [GPXPoint] = []
            for (index, tuple) in text.split(whereSeparator: \.isASCIIWhitespace).enumerated() {
                let fields = tuple.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
                guard fields.count == 2 || fields.count == 3 else {
                    throw errorAtCapture(
                        .invalidCoordinate, "coordinates tuple \(index + 1) must be \"lon,lat[,alt]\", got \"\(String(decoding: tuple, as: UTF8.self).prefix(60))\"")
                }
                let position = try position(fields, what: "coordinates tuple \(index + 1)")
                points.append(GPXPoint(coordinate: position.coordinate, elevation: position.elevation))
            }
            return points
        }

        /// `[lon, lat]` or `[lon, lat, alt]` as a coordinate and an elevation.
        func position(_ fields: [String], what: String) throws(GPXParseError) -> (coordinate: Coordinate, elevation: Double?) {
            func number(_ text: String) -> Double? {
                var copy = text
                return copy.withUTF8 { DecimalNumber(parsing: $0)?.value }
            }
            guard let longitude = number(fields[0]), let latitude = number(fields[1]) else {
                throw errorAtCapture(.invalidCoordinate, "\(what): \"\(fields.joined(separator: ","))\" is not a longitude and a latitude")
            }
            let coordinate: Coordinate
            do {
                coordinate = try Coordinate(latitude: latitude, longitude: longitude)
            } catch {
                throw errorAtCapture(.invalidCoordinate, "\(what): \(error)")
            }
            var elevation: Double?
            if fields.count == 3 {
                guard let value = number(fields[2]), value.isFinite else {
                    throw errorAtCapture(.invalidNumber, "\(what): the altitude \"\(fields[2])\" is not a number")
                }
                elevation = value
            }
            return (coordinate, elevation)
        }
    }
}
