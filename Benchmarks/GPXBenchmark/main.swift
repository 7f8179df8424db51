// GPX read throughput: streams a file through GPXReader and counts what it read, nothing more,
// which is what `gpsbabel -i gpx -f FILE -o csv -F /dev/null` and `gpxpy.parse` do too.
// Run by scripts/bench-gpx.sh (release build, LOCSIM_BENCHMARKS=1).
//
//   GPXBenchmark FILE                 GPXFormat's own streaming reader
//   GPXBenchmark --xmlparser FILE     Foundation's XMLParser(stream:) doing the same work
//   GPXBenchmark --timestamps FILE    UTCTimestamp vs Date.ISO8601FormatStyle on the file's times
import Foundation
import GPXFormat
import LocationCore

#if canImport(FoundationXML)
import FoundationXML
#endif

let arguments = CommandLine.arguments
guard arguments.count == 2 || (arguments.count == 3 && ["--xmlparser", "--timestamps"].contains(arguments[1])) else {
    print("usage: GPXBenchmark [--xmlparser | --timestamps] FILE.gpx")
    exit(2)
}

/// The same counting as GPXReader's path, through XMLParser: points with a numeric lat and lon,
/// and how many of them carry a time that parses (with the project's timestamp parser, so the
/// difference measured is the XML layer).
final class CountingDelegate: NSObject, XMLParserDelegate {
    var points = 0
    var timed = 0
    private var inPoint = false
    private var inTime = false
    private var timeText = ""

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch name {
        case "trkpt", "rtept", "wpt":
            guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init),
                (-90...90).contains(lat), (-180...180).contains(lon)
            else {
                parser.abortParsing()
                return
            }
            inPoint = true
            points += 1
        case "time" where inPoint:
            inTime = true
            timeText = ""
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inTime { timeText += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        switch name {
        case "time" where inTime:
            inTime = false
            if UTCTimestamp.parse(timeText) != nil { timed += 1 }
        case "trkpt", "rtept", "wpt":
            inPoint = false
        default:
            break
        }
    }
}

func readWithXMLParser(_ path: String) -> Int32 {
    guard let stream = InputStream(fileAtPath: path) else {
        print("cannot open \(path)")
        return 1
    }
    let parser = XMLParser(stream: stream)
    let delegate = CountingDelegate()
    parser.delegate = delegate
    guard parser.parse() else {
        print("XMLParser failed at \(parser.lineNumber):\(parser.columnNumber): \(parser.parserError.map { "\($0)" } ?? "?")")
        return 1
    }
    print("\(delegate.points) points, \(delegate.timed) with time")
    return 0
}

/// Every `<time>` text of the file, then each parser over all of them five times; prints the
/// median nanoseconds per timestamp of each and whether they agree on every value.
func compareTimestamps(_ path: String) throws -> Int32 {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var texts: [String] = []
    data.withUnsafeBytes { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        let open = Array("<time>".utf8)
        var i = 0
        while i + open.count < bytes.count {
            if bytes[i] == UInt8(ascii: "<"), bytes[i + 1] == UInt8(ascii: "t"),
                bytes[i..<(i + open.count)].elementsEqual(open)
            {
                let start = i + open.count
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "<") { end += 1 }
                texts.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                i = end
            } else {
                i += 1
            }
        }
    }
    guard !texts.isEmpty else {
        print("no <time> in \(path)")
        return 1
    }
    let style = Date.ISO8601FormatStyle()
    var ours: [Date?] = []
    var foundation: [Date?] = []
    func measure(_ body: () -> Void) -> Double {
        var samples: [Double] = []
        for _ in 0..<5 {
            let start = ContinuousClock.now
            body()
            samples.append((ContinuousClock.now - start).fractionalSeconds)
        }
        return samples.sorted()[2] / Double(texts.count) * 1e9
    }
    let oursNanoseconds = measure { ours = texts.map { UTCTimestamp.parse($0) } }
    let foundationNanoseconds = measure { foundation = texts.map { try? style.parse($0) } }
    let agree = ours == foundation
    print(
        "\(texts.count) timestamps; UTCTimestamp \(DecimalText.fixed(oursNanoseconds, decimals: 0)) ns; "
            + "ISO8601FormatStyle \(DecimalText.fixed(foundationNanoseconds, decimals: 0)) ns; "
            + (agree ? "identical dates" : "DIFFERENT dates"))
    return agree ? 0 : 1
}

do {
    switch arguments[1] {
    case "--xmlparser":
        exit(readWithXMLParser(arguments[2]))
    case "--timestamps":
        exit(try compareTimestamps(arguments[2]))
    default:
        let reader = try GPXReader(contentsOfFile: arguments[1])
        var points = 0
        var timed = 0
        while let event = try reader.next() {
            if case .point(let point, _) = event {
                points += 1
                if point.time != nil { timed += 1 }
            }
        }
        print("\(points) points, \(timed) with time")
    }
} catch {
    print("\(error)")
    exit(1)
}
