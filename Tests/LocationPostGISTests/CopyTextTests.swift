import LocSimTestHelpers
import LocationCore
@testable import LocationPostGIS
import NIOCore
import Testing

/// The text an import sends in `COPY … FROM STDIN` (text format): what PostgreSQL reads back is the
/// place's own text (a round trip through a real server: IntegrationTests' PostGISImportTests).
@Suite(.ownThread) struct CopyTextTests {
    /// The escapes one byte at a time, as the COPY documentation lists them.
    static func reference(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case UInt8(ascii: "\t"): out += Array("\\t".utf8)
            case UInt8(ascii: "\n"): out += Array("\\n".utf8)
            case UInt8(ascii: "\r"): out += Array("\\r".utf8)
            default: out.append(byte)
            }
        }
        return out
    }

    @Test("Backslash, tab, newline and carriage return are escaped wherever they are; other text, UTF-8 included, is sent as it is")
    func escapes() {
        var random = SplitMix64(seed: 11)
        let pieces = ["\\", "\t", "\n", "\r", "a", "Zürich", "東京", " ", "N", "\\N", "\u{0}"]
        var cases = ["", "plain", "\\", "\t\t", "end\n", "\rstart", "a\\b\tc\nd\re", "東京\\駅"]
        for _ in 0..<500 {
            cases.append((0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined())
        }
        for text in cases {
            var buffer = ByteBufferAllocator().buffer(capacity: 0)
            buffer.writeString("x")  // the text goes after what the buffer holds
            PostGISPlaceStore.appendCopyText(text, to: &buffer)
            #expect(buffer.readBytes(length: buffer.readableBytes) == Array("x".utf8) + Self.reference(text), "\(text.debugDescription)")
        }
    }
}
