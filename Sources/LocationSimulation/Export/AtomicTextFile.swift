#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A text file written through a temporary file beside it and renamed into place by ``commit()``;
/// dropped without committing, it leaves nothing behind.
final class AtomicTextFile {
    private let path: String
    private let temporary: String
    private var descriptor: Int32
    private var committed = false

    init(path: String) throws(SimulationError) {
        self.path = path
        self.temporary = path + ".partial-\(getpid())"
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(path) }
    }

    deinit {
        if !committed {
            close(descriptor)
            unlink(temporary)
        }
    }

    func write(_ text: String) throws(SimulationError) {
        var text = text
        let failed = text.withUTF8 { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let n = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += n
            }
            return false
        }
        if failed { throw Self.failure(path) }
    }

    func commit() throws(SimulationError) {
        committed = true
        let syncFailed = fsync(descriptor) != 0
        let closeFailed = close(descriptor) != 0
        guard !syncFailed, !closeFailed, rename(temporary, path) == 0 else {
            let error = Self.failure(path)
            unlink(temporary)
            throw error
        }
    }

    private static func failure(_ path: String) -> SimulationError {
        SimulationError(.outputFailed, parameter: path, message: "cannot write: \(String(cString: strerror(errno)))")
    }
}

/// POSIX `write(2)`.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, bytes, count)
    #elseif canImport(Musl)
    Musl.write(fd, bytes, count)
    #else
    Darwin.write(fd, bytes, count)
    #endif
}
