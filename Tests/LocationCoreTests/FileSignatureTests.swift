import Foundation
import LocationCore
import LocSimTestHelpers
import Testing

/// A packed or UTF-16 file is named at its first bytes, with a command that reads it: each file
/// here is made by the real tool, and the command the message gives is run to show it works.
@Suite(.timeLimit(.minutes(1)))
struct FileSignatureTests {
    static let text = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\n"

    /// The tools, the file each writes of `walk.nmea`, and the kind it must be named.
    static let packers: [(pack: String, packed: String, kind: String)] = [
        ("gzip -k walk.nmea", "walk.nmea.gz", "gzip-compressed"),
        ("bzip2 -k walk.nmea", "walk.nmea.bz2", "bzip2-compressed"),
        ("xz -k walk.nmea", "walk.nmea.xz", "xz-compressed"),
        ("zstd -q walk.nmea", "walk.nmea.zst", "zstd-compressed"),
        ("zip -q walk.nmea.zip walk.nmea", "walk.nmea.zip", "a zip archive"),
    ]

    @Test("Each packed file is named by its first bytes, and the command given unpacks it beside it", arguments: packers.indices)
    func packed(index: Int) async throws {
        let (pack, packed, kind) = Self.packers[index]
        let tool = String(pack.prefix { $0 != " " })
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)") else {
            Issue.record("\(tool) is not installed (apt-get install \(tool == "zstd" ? "zstd" : tool)): cannot make a \(kind) file")
            return
        }
        try await withScratchFolder("locsim-signature") { folder in
            try Data(Self.text.utf8).write(to: URL(fileURLWithPath: folder + "/walk.nmea"))
            let made = try await ChildProcess.run(["/bin/sh", "-c", pack], directory: folder)
            #expect(made.status == 0, "\(made.errors)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + packed))
            let found = try #require(FileSignature.packed(bytes.prefix(4)), "\(packed) not recognized")
            #expect(found.kind == kind)
            // Named with a packed suffix, the command writes the name without it; otherwise a
            // sibling with -unpacked before the extension. Either way the text comes back whole.
            try FileManager.default.removeItem(atPath: folder + "/walk.nmea")
            let command = found.unpackCommand(packed)
            #expect(command.hasSuffix("> walk.nmea"), "\(command)")
            try FileManager.default.moveItem(atPath: folder + "/" + packed, toPath: folder + "/renamed.nmea")
            let renamed = found.unpackCommand("renamed.nmea")
            #expect(renamed.hasSuffix("> renamed-unpacked.nmea"), "\(renamed)")
            let unpacked = try await ChildProcess.run(["/bin/sh", "-c", renamed], directory: folder)
            #expect(unpacked.status == 0, "\(renamed): \(unpacked.errors)")
            #expect(try String(contentsOfFile: folder + "/renamed-unpacked.nmea", encoding: .utf8) == Self.text)
            #expect(found.message(path: "renamed.nmea").contains("(it starts with \(found.signature)): unpack it first ('\(renamed)')"))
        }
    }

    @Test("UTF-16 text (iconv's, with and without a byte-order mark) is named, and the iconv command given gives the ASCII back",
        arguments: ["UTF-16", "UTF-16LE", "UTF-16BE"])
    func utf16(encoding: String) async throws {
        try await withScratchFolder("locsim-signature") { folder in
            try Data(Self.text.utf8).write(to: URL(fileURLWithPath: folder + "/ascii.txt"))
            let made = try await ChildProcess.run(["/bin/sh", "-c", "iconv -f ASCII -t \(encoding) ascii.txt > log.nmea"], directory: folder)
            #expect(made.status == 0, "\(made.errors)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/log.nmea"))
            let message = try #require(FileSignature.utf16Message(bytes.prefix(4), path: "log.nmea"), "\(encoding) not recognized")
            let command = try #require(message.firstMatch(of: /'(iconv [^']+)'/)?.1)
            let converted = try await ChildProcess.run(["/bin/sh", "-c", String(command)], directory: folder)
            #expect(converted.status == 0, "\(command): \(converted.errors)")
            #expect(try String(contentsOfFile: folder + "/log-ascii.nmea", encoding: .utf8) == Self.text, "\(command)")
        }
    }

    @Test("Text, GPX and NMEA as they are (or empty, or shorter than a signature) are neither packed nor UTF-16")
    func plain() {
        for sample in [Self.text, "<?xml version=\"1.0\"?><gpx/>", "# a log\n", "", "$", "\u{FEFF}$GPRMC", "PK"] {
            let bytes = Array(sample.utf8)
            #expect(FileSignature.packed(bytes.prefix(4)) == nil, "\(sample)")
            #expect(FileSignature.utf16Message(bytes.prefix(4), path: "x.nmea") == nil, "\(sample)")
        }
    }
}
