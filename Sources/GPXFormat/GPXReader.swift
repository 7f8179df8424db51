#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// What the streaming reader reports, in document order.
public enum GPXEvent: Sendable, Hashable {
    /// A `<trk>` began.
    case trackStarted
    /// A `<trkseg>` began inside the current track.
    case segmentStarted
    /// A complete point: a track point inside the current segment, a route point inside the
    /// current route, or a waypoint.
    case point(GPXPoint, GPXPointKind)
    /// The current `<trkseg>` ended.
    case segmentEnded
    /// The current `<trk>` ended; `name` is its `<name>`, if any.
    case trackEnded(name: String?)
    /// A `<rte>` began.
    case routeStarted
    /// The current `<rte>` ended.
    case routeEnded(name: String?)
}

/// A streaming GPX 1.0 / 1.1 reader with flat memory: it holds one point at a time, whatever the
/// file size.
///
/// ```swift
/// let reader = try GPXReader(contentsOfFile: "walk.gpx")
/// while let event = try reader.next() {
///     if case .point(let point, .trackPoint) = event { print(point.coordinate) }
/// }
/// ```
///
/// What is read: `trk`/`trkseg`/`trkpt`, `rte`/`rtept`, `wpt`; `ele`, `time` (with or without
/// fractional seconds, `Z` or a ±hh:mm offset, converted to UTC), `speed` and `course` (GPX 1.0
/// elements, or any `speed`/`course` element inside the point's `<extensions>`, such as Garmin's
/// `TrackPointExtension`; a direct child wins over an extension), `hdop`, `vdop`, `pdop`, `sat`,
/// `fix`, `geoidheight`, and the `name` of points, tracks and routes. Everything else, including unknown
/// extensions and namespaces, is skipped. An empty optional element (`<ele></ele>`, `<fix/>`,
/// `<name></name>`) is an absent value, not an error; so is a value element holding only
/// whitespace (`<time> </time>`; a name keeps its whitespace).
///
/// **Encodings**: UTF-8 (with or without a byte order mark), UTF-16LE/BE with a byte order mark,
/// ISO-8859-1 and windows-1252, declared or, for undeclared input that is not UTF-8, recognised;
/// everything is transcoded while streaming and positions stay lines and characters (the rules
/// are on ``GPXTextEncoding``; ``encoding`` says which one is in use).
///
/// **Errors** name the file, line and column. In ``Options/lenient`` mode a bad or missing
/// `lat`/`lon` skips its point (counted in ``skippedPoints``), and a bad optional value (an
/// unparseable `<time>`, `<ele>`, `<fix>`, …) is dropped alone, the point kept (counted in
/// ``droppedValues``); both are listed in ``problems``. Input that ends early (a recording cut
/// off mid-write: inside an element, a tag or a comment, after `<gpx>` began) ends the document
/// there: the points read before it are returned, the point it cut off is not, the open segment,
/// track or route is ended, and ``truncation`` says where. Other malformed XML always stops
/// reading.
///
/// **Times going backwards** are data, not errors: points are returned as they are, in file
/// order, and each one whose time is earlier than the latest time before it (among the file's
/// track points, the current route's points, or the waypoints) is listed in ``timeReversals``.
///
/// **Junk input** fails in bounded time and memory: a NUL byte at once (a sparse or binary file
/// fails at its first byte); a text, a tag with its attributes, a comment or any other single
/// token longer than ``Options/maximumTokenLength`` (16 MiB), or elements nested deeper than
/// ``Options/maximumDepth`` (256), with ``GPXParseError/Code/limitExceeded`` where it starts.
///
/// - Important: A reader is used by one task at a time.
public final class GPXReader {
    /// How strictly to read.
    public struct Options: Sendable, Hashable {
        /// Skip points with bad coordinates and drop bad optional values, counting them, instead
        /// of throwing.
        public var isLenient: Bool
        /// How many problems to keep in ``GPXReader/problems`` and time reversals in
        /// ``GPXReader/timeReversals``.
        public var problemLimit: Int
        /// The longest single token, in bytes of UTF-8: a text (the whole text of an element the
        /// reader keeps, such as a `<name>`), a tag with its attributes, a comment, a CDATA
        /// section, a processing instruction or a DOCTYPE. Memory stays within a few times this.
        /// Default 16 MiB.
        public var maximumTokenLength: Int
        /// The deepest nesting of elements. Default 256 (GPX itself needs 5; extensions a few more).
        public var maximumDepth: Int

        public init(
            isLenient: Bool = false, problemLimit: Int = 100, maximumTokenLength: Int = 16 << 20, maximumDepth: Int = 256
        ) {
            self.isLenient = isLenient
            self.problemLimit = problemLimit
            self.maximumTokenLength = maximumTokenLength
            self.maximumDepth = maximumDepth
        }

        /// Any problem throws.
        public static let strict = Options()
        /// Bad coordinates skip the point; bad optional values are dropped alone.
        public static let lenient = Options(isLenient: true)
    }

    private enum Element: UInt8 {
        case gpx, trk, trkseg, trkpt, rte, rtept, wpt, ele, time, speed, course, hdop, vdop, pdop, sat, fix, name,
            geoidheight, other
    }

    private enum Field {
        case elevation, time, speed, course, extensionSpeed, extensionCourse, hdop, vdop, pdop, satellites, fix,
            pointName, trackName, routeName, geoidHeight
    }

    /// Everything the reader changes as it reads, in one struct: the members of a class are
    /// reached through the runtime's exclusivity checks (a class's stored property can be reached
    /// from anywhere), a struct's members are checked at compile time. One check an event instead
    /// of one at every change of the element stack, the captured text or the point.
    private var state: State
    /// The file being read, or `nil` for in-memory input.
    public let file: String?
    /// The `creator` attribute of `<gpx>`, once the root element has been read.
    public var creator: String? { state.creator }
    /// The `version` attribute of `<gpx>` (`"1.0"` or `"1.1"`), once read.
    public var version: String? { state.version }
    /// Points skipped in lenient mode (a bad or missing `lat`/`lon`).
    public var skippedPoints: Int { state.skippedPoints }
    /// Optional values dropped in lenient mode (an unparseable `<time>`, `<ele>`, `<fix>`, …);
    /// their points were kept.
    public var droppedValues: Int { state.droppedValues }
    /// The first ``Options/problemLimit`` problems behind ``skippedPoints`` and
    /// ``droppedValues``, in file order.
    public var problems: [GPXParseError] { state.problems }
    /// In lenient mode, where the input ended early (code ``GPXParseError/Code/truncated``), once
    /// the reader has returned the last event: the document was read up to there. `nil` when the
    /// input was complete (strict mode throws instead).
    public var truncation: GPXParseError? { state.truncation }
    /// How many points have a time earlier than the latest time before them (see ``GPXReader``).
    public var timeReversalCount: Int { state.timeReversalCount }
    /// The first ``Options/problemLimit`` of them.
    public var timeReversals: [GPXTimeReversal] { state.timeReversals }
    /// Where the first point of `kind` without a `<time>` starts (its start tag's line and
    /// column), if one has been read: what a replay names when some points are timed and others
    /// not.
    package func firstUntimedPoint(_ kind: GPXPointKind) -> (line: Int, column: Int)? { state.untimed[kind]?.first }
    /// Where the points of `kind` without a `<time>` start, in file order: the first
    /// ``Options/problemLimit`` of them (a lenient replay lists the ones it leaves out).
    package func untimedPoints(_ kind: GPXPointKind) -> [(line: Int, column: Int)] { state.untimed[kind] ?? [] }
    /// The encoding the input is decoded from, once the first bytes were read (see
    /// ``GPXTextEncoding``). windows-1252 when undeclared input turned out not to be UTF-8.
    public var encoding: GPXTextEncoding? { state.scanner.encoding }

    /// Opens `path` for streaming.
    ///
    /// - Throws: ``GPXParseError`` with code ``GPXParseError/Code/io`` when the file cannot be opened.
    public convenience init(contentsOfFile path: String, options: Options = .strict) throws(GPXParseError) {
        try self.init(contentsOfFile: path, options: options, chunkSize: 1 << 18)
    }

    /// Opens `path` reading `chunkSize` bytes at a time (tests use tiny chunks to cross every
    /// token boundary).
    init(contentsOfFile path: String, options: Options, chunkSize: Int) throws(GPXParseError) {
        self.file = path
        let scanner: XMLScanner
        do {
            scanner = try XMLScanner(path: path, chunkSize: chunkSize, maximumTokenLength: options.maximumTokenLength)
        } catch {
            throw Self.ioError(error, file: path)
        }
        state = State(scanner: scanner, options: options, file: path)
    }

    /// Reads GPX held in memory, in any encoding the reader knows (see ``GPXTextEncoding``).
    public convenience init(bytes: some Collection<UInt8>, options: Options = .strict) {
        self.init(bytes: bytes, readsDeclaration: true, options: options, chunkSize: 1 << 18)
    }

    /// Reads GPX text held in memory. The text is already decoded, so an `encoding` it declares
    /// is ignored.
    public convenience init(string: String, options: Options = .strict) {
        self.init(bytes: Array(string.utf8), readsDeclaration: false, options: options, chunkSize: 1 << 18)
    }

    /// Reads bytes held in memory `chunkSize` bytes at a time.
    init(bytes: some Collection<UInt8>, readsDeclaration: Bool, options: Options, chunkSize: Int) {
        self.file = nil
        let scanner = XMLScanner(
            bytes: bytes, readsDeclaration: readsDeclaration, chunkSize: chunkSize,
            maximumTokenLength: options.maximumTokenLength)
        state = State(scanner: scanner, options: options, file: nil)
    }

    /// The error for a file that could not be opened or read (KML's reader uses it too).
    static func ioError(_ failure: XMLScanner.Failure, file: String?) -> GPXParseError {
        if case .io(let reason) = failure {
            return GPXParseError(.io, file: file, line: 0, column: 0, message: "cannot read: \(reason)")
        }
        return GPXParseError(.io, file: file, line: 0, column: 0, message: "cannot open: \(failure)")
    }

    // MARK: Reading

    /// The next event, or `nil` at the end of a complete document.
    ///
    /// - Throws: ``GPXParseError`` naming file, line and column.
    public func next() throws(GPXParseError) -> GPXEvent? {
        try state.next()
    }
}

extension GPXReader {
    /// The reader's state and the reading itself (see ``GPXReader/state``).
    private struct State {
        let scanner: XMLScanner
        let options: Options
        let file: String?
        var creator: String?
        var version: String?
        var skippedPoints = 0
        var droppedValues = 0
        var problems: [GPXParseError] = []
        var timeReversalCount = 0
        var timeReversals: [GPXTimeReversal] = []
        var untimed: [GPXPointKind: [(line: Int, column: Int)]] = [:]
        /// Where a lenient read met the end of a cut-off input; the reader returns `nil` from then on.
        var truncation: GPXParseError?

        var names: [[UInt8]] = []
        var elements: [Element] = []
        var depth = 0
        var rootClosed = false
        /// The events of the last token not handed out yet, in order. A token gives at most two
        /// (a self-closing `<trk/>`: its start and its end), so two places hold them without an
        /// array to shift.
        var pending: GPXEvent?
        var pendingSecond: GPXEvent?
        /// The latest time among the track points, the current route's points, and the waypoints.
        var latestTrackPointTime: Date?
        var latestRoutePointTime: Date?
        var latestWaypointTime: Date?

        var point = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0))
        var pointKind: GPXPointKind?
        var pointDepth = 0
        var pointIsBad = false
        var hasDirectSpeed = false
        var hasDirectCourse = false
        var containerName: String?

        var capture: Field?
        var captureDepth = 0
        var text: [UInt8] = []

        init(scanner: XMLScanner, options: Options, file: String?) {
            self.scanner = scanner
            self.options = options
            self.file = file
        }

        mutating func next() throws(GPXParseError) -> GPXEvent? {
            // (Matched as patterns: `== nil` would be GPXEvent's `==`, comparing copies.)
            while case .none = pending {
                if case .some = truncation {
                    // Cut off: the open elements end one a call, innermost first, as their end
                    // tags would end them (a segment, then its track), then the document.
                    guard depth > 0 else { return nil }
                    depth -= 1
                    if depth > 0 { emitEnd(of: elements[depth], in: elements[depth - 1]) }
                    continue
                }
                let token: XMLScanner.Token
                do {
                    token = try scanner.next()
                } catch {
                    var failure = failure(error)
                    guard failure.code == .truncated, depth > 0 else { throw failure }
                    failure.endedAfterRootBegan = true
                    guard options.isLenient else { throw failure }
                    endEarly(failure)
                    continue
                }
                switch token {
                case .startTag: try handleStart()
                case .endTag: try handleEnd()
                case .text: try handleText()
                case .end:
                    if depth > 0 {
                        guard options.isLenient else { throw endedInside() }
                        endEarly(endedInside())
                        continue
                    }
                    try finish()
                    return nil
                }
            }
            let event = pending.take()
            if case .some = pendingSecond { pending = pendingSecond.take() }
            return event
        }

        /// Queues `event` behind those of the same token.
        mutating func emit(_ event: consuming GPXEvent) {
            guard case .some = pending else {
                pending = event
                return
            }
            if case .some = pendingSecond { preconditionFailure("a token gave more than two GPX events") }
            pendingSecond = event
        }

        func failure(_ failure: XMLScanner.Failure) -> GPXParseError {
            scanner.parseError(failure, file: file, format: "GPX", fileExtension: "gpx")
        }

        func error(_ code: GPXParseError.Code, _ message: String, at mark: XMLScanner.Mark) -> GPXParseError {
            let at = scanner.location(of: mark)
            return GPXParseError(code, file: file, line: at.line, column: at.column, message: message)
        }

        func error(_ code: GPXParseError.Code, _ message: String, at position: Int) -> GPXParseError {
            scanner.parseError(code, message, at: position, file: file)
        }

        /// At the end of the input with every element closed.
        func finish() throws(GPXParseError) {
            if !rootClosed {
                let at = scanner.endLocation
                throw GPXParseError(
                    .truncated, file: file, line: at.line, column: at.column, message: "no <gpx> element found")
            }
        }

        /// The input ended while elements were open (the innermost is named).
        func endedInside() -> GPXParseError {
            let open = String(decoding: names[depth - 1], as: UTF8.self)
            let at = scanner.endLocation
            var error = GPXParseError(.truncated, file: file, line: at.line, column: at.column, message: "input ended inside <\(open)>")
            error.endedAfterRootBegan = true
            return error
        }

        /// Lenient reading of a cut-off input: the point being read is left out (it may lack what
        /// followed); ``next()`` then ends the open elements and returns `nil`.
        mutating func endEarly(_ cut: GPXParseError) {
            truncation = cut
            pointKind = nil
            capture = nil
        }

        // MARK: Elements

        /// Whether `bytes` are exactly `name` (compared byte by byte, not through String's views).
        static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, equal name: StaticString) -> Bool {
            Self.bytes(bytes, equal: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        }

        /// Whether two names are the same bytes.
        static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, equal other: UnsafeBufferPointer<UInt8>) -> Bool {
            guard bytes.count == other.count else { return false }
            for i in 0..<bytes.count where bytes[i] != other[i] { return false }
            return true
        }

        /// The element a name (prefix and all) stands for. Static: it needs only the name's bytes,
        /// and a non-mutating method of this large struct called from a mutating one was handed a
        /// copy of the whole state for each start tag.
        static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> Element {
            var localStart = 0
            for i in 0..<bytes.count where bytes[i] == UInt8(ascii: ":") { localStart = i + 1 }
            let local = UnsafeBufferPointer(rebasing: bytes[localStart...])
            func equals(_ name: StaticString) -> Bool { Self.bytes(local, equal: name) }
            switch local.count {
            case 3:
                if equals("gpx") { return .gpx }
                if equals("trk") { return .trk }
                if equals("rte") { return .rte }
                if equals("wpt") { return .wpt }
                if equals("ele") { return .ele }
                if equals("sat") { return .sat }
                if equals("fix") { return .fix }
            case 4:
                if equals("time") { return .time }
                if equals("hdop") { return .hdop }
                if equals("vdop") { return .vdop }
                if equals("pdop") { return .pdop }
                if equals("name") { return .name }
            case 5:
                if equals("trkpt") { return .trkpt }
                if equals("rtept") { return .rtept }
                if equals("speed") { return .speed }
            case 6:
                if equals("trkseg") { return .trkseg }
                if equals("course") { return .course }
            case 11:
                if equals("geoidheight") { return .geoidheight }
            default: break
            }
            return .other
        }

        mutating func handleStart() throws(GPXParseError) {
            let element = Self.classify(scanner.bytes(scanner.nameStart, scanner.nameEnd))
            if depth == 0 {
                if rootClosed { throw error(.malformedXML, "content after the end of <gpx>", at: scanner.tokenStart) }
                guard element == .gpx else {
                    let name = scanner.string(scanner.nameStart, scanner.nameEnd)
                    throw error(.notGPX, "the root element is <\(name)>, not <gpx>", at: scanner.tokenStart)
                }
                creator = try attribute("creator")
                version = try attribute("version")
            }
            if depth >= options.maximumDepth {
                throw error(
                    .limitExceeded, "elements nested more than \(options.maximumDepth) deep (is this a GPX file?)",
                    at: scanner.tokenStart)
            }
            let parent = depth > 0 ? elements[depth - 1] : nil
            push(element)

            switch element {
            case .trk where parent == .gpx:
                containerName = nil
                emit(.trackStarted)
            case .trkseg where parent == .trk:
                emit(.segmentStarted)
            case .rte where parent == .gpx:
                containerName = nil
                latestRoutePointTime = nil
                emit(.routeStarted)
            case .trkpt where parent == .trkseg:
                try beginPoint(.trackPoint)
            case .rtept where parent == .rte:
                try beginPoint(.routePoint)
            case .wpt where parent == .gpx:
                try beginPoint(.waypoint)
            default:
                if pointKind != nil {
                    let direct = depth - 2 == pointDepth
                    let field: Field? =
                        switch element {
                        case .ele where direct: .elevation
                        case .time where direct: .time
                        case .speed: direct ? .speed : .extensionSpeed
                        case .course: direct ? .course : .extensionCourse
                        case .hdop where direct: .hdop
                        case .vdop where direct: .vdop
                        case .pdop where direct: .pdop
                        case .sat where direct: .satellites
                        case .fix where direct: .fix
                        case .name where direct: .pointName
                        case .geoidheight where direct: .geoidHeight
                        default: nil
                        }
                    if let field { startCapture(field) }
                } else if element == .name, parent == .trk {
                    startCapture(.trackName)
                } else if element == .name, parent == .rte {
                    startCapture(.routeName)
                }
            }
            if scanner.selfClosing { try handleEnd(selfClosing: true) }
        }

        mutating func push(_ element: Element) {
            let name = scanner.bytes(scanner.nameStart, scanner.nameEnd)
            if depth < names.count {
                names[depth].removeAll(keepingCapacity: true)
                names[depth].append(contentsOf: name)
                elements[depth] = element
            } else {
                names.append(Array(name))
                elements.append(element)
            }
            depth += 1
        }

        mutating func startCapture(_ field: Field) {
            capture = field
            captureDepth = depth
            scanner.mark(.capture, at: scanner.tokenStart)
            text.removeAll(keepingCapacity: true)
        }

        mutating func handleEnd(selfClosing: Bool = false) throws(GPXParseError) {
            guard depth > 0 else {
                throw error(.malformedXML, "end tag without a matching start tag", at: scanner.tokenStart)
            }
            if !selfClosing {
                let name = scanner.bytes(scanner.nameStart, scanner.nameEnd)
                let open = names[depth - 1]
                if !open.withUnsafeBufferPointer({ Self.bytes($0, equal: name) }) {
                    throw error(
                        .malformedXML,
                        "</\(String(decoding: name, as: UTF8.self))> does not close <\(String(decoding: open, as: UTF8.self))>",
                        at: scanner.tokenStart)
                }
            }
            let element = elements[depth - 1]
            depth -= 1
            if let field = capture, captureDepth == depth + 1 {
                capture = nil
                try store(field)
            }
            if let kind = pointKind, depth == pointDepth {
                pointKind = nil
                if pointIsBad {
                    skippedPoints += 1
                } else {
                    checkTimeOrder(kind)
                    emit(.point(point, kind))
                }
                return
            }
            if depth == 0 {
                if element == .gpx { rootClosed = true }
            } else {
                emitEnd(of: element, in: elements[depth - 1])
            }
        }

        /// The event an element's end gives: a segment's in a track, a track's or a route's in `<gpx>`.
        mutating func emitEnd(of element: Element, in parent: Element) {
            switch element {
            case .trkseg where parent == .trk: emit(.segmentEnded)
            case .trk where parent == .gpx: emit(.trackEnded(name: containerName))
            case .rte where parent == .gpx: emit(.routeEnded(name: containerName))
            default: break
            }
        }

        mutating func handleText() throws(GPXParseError) {
            if capture != nil, depth == captureDepth {
                // One token is within the limit already (decoding never lengthens it); pieces
                // (text, CDATA, text around comments) are checked as they add up.
                let isFirstPiece = text.isEmpty
                do {
                    try scanner.appendText(into: &text)
                } catch {
                    throw failure(error)
                }
                if !isFirstPiece { try checkCapturedLength() }
                return
            }
            if depth == 0 && !scanner.textIsCDATA {
                let bytes = scanner.bytes(scanner.textStart, scanner.textEnd)
                if let offset = bytes.firstIndex(where: { !$0.isASCIIWhitespace }) {
                    throw error(.malformedXML, "text outside the <gpx> element", at: scanner.textStart + offset)
                }
            }
        }

        func checkCapturedLength() throws(GPXParseError) {
            guard text.count > options.maximumTokenLength else { return }
            throw error(
                .limitExceeded,
                "an element whose text is longer than \(XMLScanner.describeBytes(options.maximumTokenLength)) starts here "
                    + "(the most the reader holds of one text; is this a GPX file?)",
                at: .capture)
        }

        // MARK: Points

        mutating func beginPoint(_ kind: GPXPointKind) throws(GPXParseError) {
            pointKind = kind
            pointDepth = depth - 1
            pointIsBad = false
            hasDirectSpeed = false
            hasDirectCourse = false
            scanner.mark(.point, at: scanner.tokenStart)
            let tag = scanner.tokenStart
            var latitude: Double?
            var longitude: Double?
            // The attributes' values, as text only for a message (most points have none).
            var latitudeValue: XMLScanner.Attribute?
            var longitudeValue: XMLScanner.Attribute?
            for attribute in scanner.attributes {
                let name = scanner.bytes(attribute.nameStart, attribute.nameEnd)
                if Self.bytes(name, equal: "lat") {
                    latitude = parseDecimal(scanner.bytes(attribute.valueStart, attribute.valueEnd))
                    latitudeValue = attribute
                } else if Self.bytes(name, equal: "lon") {
                    longitude = parseDecimal(scanner.bytes(attribute.valueStart, attribute.valueEnd))
                    longitudeValue = attribute
                }
            }
            // Messages are built lazily by the problem's mutating method, so they read the window
            // through this reference rather than through `self`.
            let window = scanner
            func text(_ attribute: XMLScanner.Attribute) -> String { window.string(attribute.valueStart, attribute.valueEnd) }
            let element = kind.rawValue
            guard let latitudeValue else {
                return try pointProblem(.missingCoordinate, "<\(element)> has no lat attribute", at: tag)
            }
            guard let longitudeValue else {
                return try pointProblem(.missingCoordinate, "<\(element)> has no lon attribute", at: tag)
            }
            guard let latitude else {
                return try pointProblem(.invalidCoordinate, "lat \"\(text(latitudeValue))\" is not a number", at: tag)
            }
            guard let longitude else {
                return try pointProblem(.invalidCoordinate, "lon \"\(text(longitudeValue))\" is not a number", at: tag)
            }
            do {
                point = GPXPoint(coordinate: try Coordinate(latitude: latitude, longitude: longitude))
            } catch {
                let text = text(error.component == .latitude ? latitudeValue : longitudeValue)
                return try pointProblem(
                    .invalidCoordinate, "\(error.component == .latitude ? "lat" : "lon") \"\(text)\" is \(error.code); expected \(error.component == .latitude ? "-90...90" : "-180...180")",
                    at: tag)
            }
        }

        /// A bad position: thrown in strict mode; in lenient mode the point is skipped. (The
        /// location is worked out only for problems that are kept: a file with a million bad points
        /// must not scan its window a million times.)
        mutating func pointProblem(_ code: GPXParseError.Code, _ message: @autoclosure () -> String, at position: Int)
            throws(GPXParseError)
        {
            guard options.isLenient else { throw error(code, message(), at: position) }
            if !pointIsBad {
                pointIsBad = true
                if problems.count < options.problemLimit { problems.append(error(code, message(), at: position)) }
            }
        }

        /// A bad optional value: thrown in strict mode; in lenient mode reported and dropped, the
        /// point kept.
        mutating func valueProblem(_ code: GPXParseError.Code, _ message: @autoclosure () -> String) throws(GPXParseError) {
            guard options.isLenient else { throw error(code, message(), at: .capture) }
            droppedValues += 1
            if problems.count < options.problemLimit { problems.append(error(code, message(), at: .capture)) }
        }

        mutating func store(_ field: Field) throws(GPXParseError) {
            if pointIsBad { return }
            // The messages below are built lazily by a mutating method, so they read this copy.
            let text = self.text
            // An empty element is an absent value; so is one holding only whitespace, except a name.
            // (Checked only when a value does not parse, so good values cost nothing more.)
            func isBlank() -> Bool { text.allSatisfy(\.isASCIIWhitespace) }
            func shown() -> String { String(decoding: text, as: UTF8.self) }
            func number(_ what: String) throws(GPXParseError) -> Double? {
                let parsed = text.withUnsafeBufferPointer { parseDecimal($0) }
                if let parsed, parsed.isFinite { return parsed }
                if !isBlank() { try valueProblem(.invalidNumber, "<\(what)> \"\(shown())\" is not a number") }
                return nil
            }
            switch field {
            case .elevation: point.elevation = try number("ele")
            case .time:
                guard let time = text.withUnsafeBufferPointer({ UTCTimestamp.parse($0) }) else {
                    if isBlank() { return }
                    return try valueProblem(
                        .invalidTime, "<time> \"\(shown())\" is not an ISO-8601 time such as 2024-05-01T12:00:00Z")
                }
                point.time = time
            case .speed:
                if let speed = try number("speed") {
                    point.speed = speed
                    hasDirectSpeed = true
                }
            case .course:
                if let course = try number("course") {
                    point.course = course
                    hasDirectCourse = true
                }
            case .extensionSpeed:
                if !hasDirectSpeed, let speed = try number("speed") { point.speed = speed }
            case .extensionCourse:
                if !hasDirectCourse, let course = try number("course") { point.course = course }
            case .hdop: point.horizontalDilution = try number("hdop")
            case .geoidHeight: point.geoidHeight = try number("geoidheight")
            case .vdop: point.verticalDilution = try number("vdop")
            case .pdop: point.positionDilution = try number("pdop")
            case .satellites:
                guard let satellites = text.withUnsafeBufferPointer({ parseInteger($0) }), satellites >= 0 else {
                    if isBlank() { return }
                    return try valueProblem(.invalidNumber, "<sat> \"\(shown())\" is not a satellite count")
                }
                point.satellites = satellites
            case .fix:
                let value = String(decoding: text.drop(while: \.isASCIIWhitespace).reversed().drop(while: \.isASCIIWhitespace).reversed(), as: UTF8.self)
                guard let fix = GPXFixType(rawValue: value) else {
                    if value.isEmpty { return }
                    return try valueProblem(.invalidNumber, "<fix> \"\(value)\" is not one of none, 2d, 3d, dgps, pps")
                }
                point.fix = fix
            case .pointName: point.name = text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
            case .trackName, .routeName: containerName = text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
            }
        }

        /// Lists the point just completed when its time is earlier than the latest before it.
        mutating func checkTimeOrder(_ kind: GPXPointKind) {
            guard let time = point.time else {
                if untimed[kind, default: []].count < max(1, options.problemLimit) { untimed[kind, default: []].append(scanner.location(of: .point)) }
                return
            }
            let latest: Date? =
                switch kind {
                case .trackPoint: latestTrackPointTime
                case .routePoint: latestRoutePointTime
                case .waypoint: latestWaypointTime
                }
            if let latest, time < latest {
                timeReversalCount += 1
                if timeReversals.count < options.problemLimit {
                    let at = scanner.location(of: .point)
                    timeReversals.append(
                        GPXTimeReversal(kind: kind, file: file, line: at.line, column: at.column, time: time, latestTime: latest))
                }
                return
            }
            switch kind {
            case .trackPoint: latestTrackPointTime = time
            case .routePoint: latestRoutePointTime = time
            case .waypoint: latestWaypointTime = time
            }
        }

        func attribute(_ wanted: String) throws(GPXParseError) -> String? {
            for attribute in scanner.attributes
            where scanner.bytes(attribute.nameStart, attribute.nameEnd).elementsEqual(wanted.utf8) {
                var out: [UInt8] = []
                do {
                    try scanner.appendValue(of: attribute, into: &out)
                } catch {
                    throw failure(error)
                }
                return String(decoding: out, as: UTF8.self)
            }
            return nil
        }
    }
}
