/// What a file's first bytes say it is, for the text readers (GPX, NMEA) to name a packed file
/// at its first byte rather than report its bytes as broken text: a `walk.gpx.gz` renamed, a
/// log zipped for mail, a recording written by a Windows shell as UTF-16.
package enum FileSignature {
    /// A compressed or archive format: its name, and the command that unpacks `path`.
    package struct Packed: Sendable, Hashable {
        /// `gzip-compressed`, `a zip archive`, …
        package let kind: String
        /// The first bytes that say it.
        let bytes: [UInt8]
        private let unpack: String

        /// The signature's bytes in hex (`1F 8B`).
        package var signature: String { bytes.map { $0.hexDigits() }.joined(separator: " ") }

        /// The command that unpacks `path` beside it, keeping it: `gzip -dc walk.gpx.gz >
        /// walk.gpx`, or `… > walk-unpacked.gpx` when the name has no packed suffix.
        package func unpackCommand(_ path: String) -> String {
            for suffix in [".gz", ".bz2", ".xz", ".zst", ".zip", ".7z"] where path.hasSuffix(suffix) && path.count > suffix.count {
                return "\(unpack) \(path) > \(path.dropLast(suffix.count))"
            }
            return "\(unpack) \(path) > \(FileSignature.sibling(of: path, tag: "unpacked"))"
        }

        /// One message for the file `path` (nil: input that is no file): what it is and how to
        /// read it.
        package func message(path: String?) -> String {
            guard let path else { return "the input is \(kind) (it starts with \(signature)): unpack it first" }
            return "the file is \(kind) (it starts with \(signature)): unpack it first ('\(unpackCommand(path))')"
        }

        fileprivate init(_ kind: String, _ bytes: [UInt8], _ unpack: String) {
            self.kind = kind
            self.bytes = bytes
            self.unpack = unpack
        }
    }

    private static let packed: [Packed] = [
        Packed("gzip-compressed", [0x1F, 0x8B], "gzip -dc"),
        Packed("bzip2-compressed", [0x42, 0x5A, 0x68], "bzip2 -dc"),
        Packed("xz-compressed", [0xFD, 0x37, 0x7A, 0x58], "xz -dc"),
        Packed("zstd-compressed", [0x28, 0xB5, 0x2F, 0xFD], "zstd -dc"),
        Packed("a zip archive", [0x50, 0x4B, 0x03, 0x04], "unzip -p"),
        Packed("a 7-Zip archive", [0x37, 0x7A, 0xBC, 0xAF], "7z x -so"),
    ]

    /// The packed format whose signature `prefix` (a file's first bytes, at least 4 when the
    /// file has them) starts with, or nil.
    package static func packed(_ prefix: some Collection<UInt8>) -> Packed? {
        packed.first { prefix.starts(with: $0.bytes) }
    }

    /// A message for the file `path` when its first bytes (`prefix`) show UTF-16 text where
    /// ASCII is meant (a log a Windows shell redirected): a byte-order mark (`FF FE`, `FE FF`),
    /// or an ASCII character beside a NUL (`$ 00`, `00 $`); what it is and the `iconv` command
    /// that converts it. Nil for anything else.
    package static func utf16Message(_ prefix: some Collection<UInt8>, path: String) -> String? {
        guard let utf16 = utf16(prefix) else { return nil }
        return "the file is \(utf16.name) text (\(utf16.how)), not ASCII: convert it first "
            + "('iconv -f \(utf16.iconvName) -t ASCII \(path) > \(sibling(of: path, tag: "ascii"))')"
    }

    /// UTF-16 text where ASCII (or UTF-8) is meant, as its first bytes (`prefix`) show it: its
    /// name (`UTF-16LE`), how they show it, and iconv's name for it. Nil for anything else.
    package static func utf16(_ prefix: some Collection<UInt8>) -> (name: String, how: String, iconvName: String)? {
        let bytes = Array(prefix.prefix(2))
        guard bytes.count == 2 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0xFF, 0xFE): return ("UTF-16LE", "a byte-order mark FF FE", "UTF-16")
        case (0xFE, 0xFF): return ("UTF-16BE", "a byte-order mark FE FF", "UTF-16")
        case (let a, 0x00) where a >= 0x20 && a < 0x7F: return ("UTF-16LE", "every other byte is 00", "UTF-16LE")
        case (0x00, let b) where b >= 0x20 && b < 0x7F: return ("UTF-16BE", "every other byte is 00", "UTF-16BE")
        default: return nil
        }
    }

    /// `path` with `-tag` before its extension (`logs/walk-ascii.nmea`), or after a name without one.
    fileprivate static func sibling(of path: String, tag: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[slash...].lastIndex(of: "."), dot > slash else { return path + "-" + tag }
        return path[..<dot] + "-" + tag + path[dot...]
    }

}
