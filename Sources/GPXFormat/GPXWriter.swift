#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import LocationCore

/// Writes GPX 1.1, point by point, so an endless provider can be recorded with flat memory.
///
/// Everything the reader understands is written back so that reading the output gives the same
/// values: coordinates and numbers in their shortest exact decimal form, times in UTC with up to
/// microseconds, speed and course in a `<extensions>` block (GPX 1.1 has no elements for them).
///
/// Layouts:
/// - ``Layout/track``: one `<trk>`; ``startSegment()`` begins a new `<trkseg>`.
/// - ``Layout/route``: one `<rte>` of `<rtept>`.
/// - ``Layout/waypoints``: `<wpt>` elements with `<time>`, the form Xcode's iOS Simulator replays
///   (it ignores `trk` and `rte`).
///
/// Writing to a file goes to a temporary file beside it, renamed into place by ``finish()``: a
/// crash or an error never leaves a half-written GPX at `path`. A live recording
/// (``init(recordingTo:layout:creator:)``) is the other choice: written in place, each point
/// reaching the file at once followed by the closing tags, so the file is a complete GPX
/// document after every point, whenever the recording stops.
///
/// ```swift
/// let writer = try GPXWriter(path: "walk.gpx")
/// for try await fix in provider { try writer.write(fix) }
/// try writer.finish()
/// ```
///
/// - Important: A writer is used by one task at a time.
public final class GPXWriter {
    /// What kind of GPX list the points form.
    public enum Layout: Sendable, Hashable {
        case track, route, waypoints
    }

    private enum Sink {
        case file(AtomicFile)
        case live(LiveFile)
        case memory
    }

    private let layout: Layout
    private var sink: Sink
    private var pending: [UInt8] = []
    private var segmentOpen = false
    /// A fix without a position came after a point: the next fix starts a segment.
    private var fixLost = false
    private var finished = false
    private var memory: [UInt8] = []

    /// Starts a GPX file at `path` (written to `path` + a temporary suffix until ``finish()``).
    ///
    /// - Throws: ``GPXWriteError`` when the temporary file cannot be created.
    public init(path: String, layout: Layout = .track, creator: String = "locsim") throws(GPXWriteError) {
        self.layout = layout
        do {
            sink = .file(try AtomicFile(path: path))
        } catch {
            throw GPXWriteError(path: path, reason: error.reason)
        }
        header(creator: creator)
    }

    /// Starts a live recording at `path`: written in place (created or truncated), each point
    /// and segment break written at once and followed by the closing tags, which the next point
    /// replaces. Whenever the process stops, even killed, `path` holds a complete GPX document
    /// with every point written so far. ``finish()`` closes the file.
    ///
    /// - Throws: ``GPXWriteError`` when the file cannot be created.
    public init(recordingTo path: String, layout: Layout = .track, creator: String = "locsim") throws(GPXWriteError) {
        self.layout = layout
        do {
            sink = .live(try LiveFile(path: path))
        } catch {
            throw GPXWriteError(path: path, reason: error.reason)
        }
        header(creator: creator)
        try flush()
    }

    /// Starts a GPX document in memory; ``finish()`` returns nothing, ``string`` holds the text.
    public init(layout: Layout = .track, creator: String = "locsim") {
        self.layout = layout
        sink = .memory
        header(creator: creator)
    }

    private func header(creator: String) {
        append(Self.documentStart(creator: creator))
        switch layout {
        case .track: append("  <trk>\n")
        case .route: append("  <rte>\n")
        case .waypoints: break
        }
    }

    /// Ends the current track segment and begins another (track layout only; ignored otherwise).
    public func startSegment() throws(GPXWriteError) {
        fixLost = false
        guard layout == .track else { return }
        if segmentOpen { append("    </trkseg>\n") }
        append("    <trkseg>\n")
        segmentOpen = true
        try flushIfNeeded()
    }

    /// Writes one point.
    public func write(_ point: GPXPoint) throws(GPXWriteError) {
        let element: String
        let indent: String
        switch layout {
        case .track:
            if !segmentOpen { try startSegment() }
            element = "trkpt"
            indent = "      "
        case .route:
            element = "rtept"
            indent = "    "
        case .waypoints:
            element = "wpt"
            indent = "  "
        }
        append(indent + Self.pointXML(point, element: element) + "\n")
        try flushIfNeeded()
    }

    /// The closing tags of the document as it stands.
    private var trailer: String {
        switch layout {
        case .track: (segmentOpen ? "    </trkseg>\n" : "") + "  </trk>\n</gpx>\n"
        case .route: "  </rte>\n</gpx>\n"
        case .waypoints: "</gpx>\n"
        }
    }

    /// Writes a fix. A fix without a position is left out (GPX has no way to say "no fix here")
    /// and ends the track segment: the next point starts a new `<trkseg>` (the receiver lost
    /// its fix in between).
    ///
    /// - Parameters:
    ///   - fix: The fix to write.
    ///   - horizontalAccuracyPerHDOP: Writes the accuracy as `<hdop>` by this model; see
    ///     ``GPXPoint/init(fix:horizontalAccuracyPerHDOP:)``.
    public func write(_ fix: Fix, horizontalAccuracyPerHDOP: Double? = nil) throws(GPXWriteError) {
        guard fix.hasPosition, let point = GPXPoint(fix: fix, horizontalAccuracyPerHDOP: horizontalAccuracyPerHDOP) else {
            fixLost = segmentOpen
            return
        }
        if fixLost { try startSegment() }
        try write(point)
    }

    /// Closes the document. For a file, flushes, syncs and renames it into place; a live
    /// recording is closed where it is.
    public func finish() throws(GPXWriteError) {
        guard !finished else { return }
        if case .live(let file) = sink {
            finished = true
            do {
                try file.append(pending + Array(trailer.utf8))
                pending.removeAll()
                try file.close()
            } catch {
                throw GPXWriteError(path: error.path, reason: error.reason)
            }
            return
        }
        append(trailer)
        try flush()
        finished = true
        if case .file(let file) = sink {
            do {
                try file.commit()
            } catch {
                throw GPXWriteError(path: error.path, reason: error.reason)
            }
        }
    }

    /// The text written so far, including what is not yet flushed (memory writers; empty for a
    /// file writer).
    public var string: String {
        guard case .memory = sink else { return "" }
        return String(decoding: memory + pending, as: UTF8.self)
    }

    /// A whole document as GPX 1.1 text: its tracks, routes and waypoints.
    public static func string(_ document: GPXDocument, creator: String = "locsim") -> String {
        var out = documentStart(creator: document.creator ?? creator)
        for waypoint in document.waypoints { out += pointText(waypoint, element: "wpt", indent: "  ") }
        for route in document.routes {
            out += "  <rte>\n"
            if let name = route.name { out += "    <name>\(XMLText.escaped(name))</name>\n" }
            for point in route.points { out += pointText(point, element: "rtept", indent: "    ") }
            out += "  </rte>\n"
        }
        for track in document.tracks {
            out += "  <trk>\n"
            if let name = track.name { out += "    <name>\(XMLText.escaped(name))</name>\n" }
            for segment in track.segments {
                out += "    <trkseg>\n"
                for point in segment { out += pointText(point, element: "trkpt", indent: "      ") }
                out += "    </trkseg>\n"
            }
            out += "  </trk>\n"
        }
        return out + "</gpx>\n"
    }

    /// The XML declaration and the `<gpx>` start tag: GPX 1.1, with the namespace of locsim's
    /// speed and course extensions.
    private static func documentStart(creator: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<gpx version=\"1.1\" creator=\"\(XMLText.escaped(creator))\" xmlns=\"http://www.topografix.com/GPX/1/1\""
            + " xmlns:locsim=\"https://locsim.invalid/xmlschemas/extensions/1\">\n"
    }

    private static func pointText(_ point: GPXPoint, element: String, indent: String) -> String {
        indent + pointXML(point, element: element) + "\n"
    }

    /// One point element on one line.
    static func pointXML(_ point: GPXPoint, element: String) -> String {
        var out = "<\(element) lat=\"\(formatDecimal(point.coordinate.latitude))\" lon=\"\(formatDecimal(point.coordinate.longitude))\">"
        if let elevation = point.elevation { out += "<ele>\(formatDecimal(elevation))</ele>" }
        if let time = point.time { out += "<time>\(formatTime(time))</time>" }
        if let geoidHeight = point.geoidHeight { out += "<geoidheight>\(formatDecimal(geoidHeight))</geoidheight>" }
        if let name = point.name { out += "<name>\(XMLText.escaped(name))</name>" }
        if let fix = point.fix { out += "<fix>\(fix.rawValue)</fix>" }
        if let satellites = point.satellites { out += "<sat>\(satellites)</sat>" }
        if let hdop = point.horizontalDilution { out += "<hdop>\(formatDecimal(hdop))</hdop>" }
        if let vdop = point.verticalDilution { out += "<vdop>\(formatDecimal(vdop))</vdop>" }
        if let pdop = point.positionDilution { out += "<pdop>\(formatDecimal(pdop))</pdop>" }
        if point.speed != nil || point.course != nil {
            out += "<extensions>"
            if let speed = point.speed { out += "<locsim:speed>\(formatDecimal(speed))</locsim:speed>" }
            if let course = point.course { out += "<locsim:course>\(formatDecimal(course))</locsim:course>" }
            out += "</extensions>"
        }
        return out + "</\(element)>"
    }

    // MARK: Output

    private func append(_ text: String) { pending.append(contentsOf: text.utf8) }

    private func flushIfNeeded() throws(GPXWriteError) {
        if case .live = sink {
            try flush()
        } else if pending.count >= 1 << 16 {
            try flush()
        }
    }

    private func flush() throws(GPXWriteError) {
        switch sink {
        case .memory:
            memory.append(contentsOf: pending)
        case .file(let file):
            do {
                try file.write(pending)
            } catch {
                throw GPXWriteError(path: error.path, reason: error.reason)
            }
        case .live(let file):
            do {
                try file.append(pending, trailer: Array(trailer.utf8))
            } catch {
                throw GPXWriteError(path: error.path, reason: error.reason)
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// UTC time with as many fractional digits as needed, up to microseconds.
    static func formatTime(_ date: Date) -> String {
        var text = UTCTimestamp.format(date, fractionDigits: 6)
        // "…:58.123000Z" → "…:58.123Z"; "…:58.000000Z" → "…:58Z"
        text.removeLast()
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text + "Z"
    }
}

/// A GPX file could not be written.
public struct GPXWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The destination path, or `"<memory>"`.
    public let path: String
    /// The operating system's reason.
    public let reason: String
    public var description: String { "\(path): cannot write GPX: \(reason)" }
}
