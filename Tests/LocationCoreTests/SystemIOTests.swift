import Foundation
import LocationCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocSimTestHelpers

@Suite("System I/O: read and write loops", .ownThread)
struct SystemIOTests {
    @Test("Bytes written through a pipe come back whole, and the end of input reads as 0")
    func pipeRoundTrip() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var random = SplitMix64(seed: 9)
        let bytes = (0..<40_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        try bytes.withUnsafeBytes { try SystemIO.writeAll(ends[1], $0) }
        close(ends[1])
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try SystemIO.read(ends[0], into: $0) }
            if count == 0 { break }
            received += chunk[..<count]
        }
        #expect(received == bytes)
    }

    @Test("readFile reads a pipe to its end (as /dev/stdin or a FIFO is), a file whole; a folder or a missing path is the system's reason")
    func readFile() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var random = SplitMix64(seed: 4)
        let bytes = (0..<40_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        try bytes.withUnsafeBytes { try SystemIO.writeAll(ends[1], $0) }
        close(ends[1])
        #expect(try SystemIO.readFile("/dev/fd/\(ends[0])") == bytes)
        try withScratchFolder("locsim-system-io") { folder in
            let path = folder + "/whole.bin"
            try Data(bytes + bytes + bytes).write(to: URL(fileURLWithPath: path))
            #expect(try SystemIO.readFile(path) == bytes + bytes + bytes)
            #expect(throws: SystemIOError(code: EISDIR)) { try SystemIO.readFile(folder) }
            #expect(throws: SystemIOError(code: ENOENT)) { try SystemIO.readFile(folder + "/absent") }
        }
    }

    @Test("A write at an offset lands there and leaves the file's position alone")
    func writeAtOffset() throws {
        try withScratchFolder("locsim-system-io") { folder in
            let path = folder + "/systemio.bin"
            let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
            #expect(fd >= 0)
            defer { close(fd) }
            try Array("abcdef".utf8).withUnsafeBytes { try SystemIO.writeAll(fd, $0) }
            try Array("XY".utf8).withUnsafeBytes { try SystemIO.writeAll(fd, $0, at: 1) }
            try Array("!".utf8).withUnsafeBytes { try SystemIO.writeAll(fd, $0) }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "aXYdef!")
        }
    }

    @Test("A failure is an error with the system's reason, not a silent short count")
    func failures() throws {
        let readOnly = open("/dev/null", O_RDONLY)
        defer { close(readOnly) }
        let writeError = #expect(throws: SystemIOError.self) {
            try Array("x".utf8).withUnsafeBytes { try SystemIO.writeAll(readOnly, $0) }
        }
        #expect(writeError?.code == EBADF)
        #expect(writeError?.description == String(cString: strerror(EBADF)))
        let writeOnly = open("/dev/null", O_WRONLY)
        defer { close(writeOnly) }
        var buffer = [UInt8](repeating: 0, count: 8)
        let readError = #expect(throws: SystemIOError.self) {
            _ = try buffer.withUnsafeMutableBytes { try SystemIO.read(writeOnly, into: $0) }
        }
        #expect(readError?.code == EBADF)
    }
}
