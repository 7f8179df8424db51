// GPX read throughput: streams a file through GPXReader and counts what it read, nothing more,
// which is what `gpsbabel -i gpx -f FILE -o csv -F /dev/null` and `gpxpy.parse` do too.
// Run by scripts/bench-gpx.sh (release build, LOCSIM_BENCHMARKS=1).
import GPXFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    print("usage: GPXBenchmark FILE.gpx")
    exit(2)
}
do {
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
} catch {
    print("\(error)")
    exit(1)
}
