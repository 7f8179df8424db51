package import LocationCore
package import NMEAFormat

extension LocationProvider {
    /// Records this provider's fixes as NMEA 0183 sentences (by default RMC, GGA, VTG and GSA per
    /// fix, talker `GP`, CR LF), until the stream ends or `limit` fixes have been read.
    ///
    /// Every fix is written, a no-fix one as void RMC/GGA/GSA sentences (as a receiver reports
    /// it). Written through ``/NMEAFormat/NMEAFileWriter``: to a temporary file beside `path`, renamed
    /// into place when complete, so an error never leaves a half-written log; memory stays flat. Horizontal
    /// accuracy becomes HDOP only through `options.accuracyModel`.
    ///
    /// - Parameters:
    ///   - path: Where to write.
    ///   - options: The sentences, talker, accuracy model and line ending (``/NMEAFormat/NMEAWriter/Options``).
    ///   - limit: Read at most this many fixes (≥ 0), or `nil` for the whole stream (which must end).
    /// - Returns: The number of fixes written. A stream that ends because the task was
    ///   cancelled before its first fix writes nothing (`path` keeps what it held) and returns 0.
    /// - Throws: `NMEAError` for a fix NMEA cannot express (naming the property) or, with code
    ///   `io` naming the path, for a file that cannot be written; or whatever the provider throws.
    @discardableResult
    package func writeNMEA(toFile path: String, options: NMEAWriter.Options = NMEAWriter.Options(), limit: Int? = nil)
        async throws -> Int
    {
        let file = try NMEAFileWriter(path: path, options: options)
        var count = 0
        var iterator = makeAsyncIterator()
        while limit.map({ count < $0 }) ?? true, let fix = try await iterator.next() {
            try file.write(fix)
            count += 1
        }
        // Cancelled before the first fix (Ctrl-C at once): an empty log would replace `path`.
        if count == 0, Task.isCancelled { return 0 }
        try file.finish()
        return count
    }

}
