@testable import LocationCore
import LocSimTestHelpers
import Testing

/// How errors quote what a user or a peer sent.
@Suite(.ownThread) struct TextExcerptTests {
    @Test("Printable text is quoted as itself, in any script")
    func printableText() {
        for text in ["lat=35.1", "Zürich", "東京タワー", "café 🚶", "e\u{301}"] {
            let shown = TextExcerpt.render(text, limit: 40)
            #expect(shown == text)
        }
    }

    @Test("Control and format characters, separators and bytes that are not UTF-8 are quoted as \\xHH")
    func escapes() {
        let cases: [(bytes: [UInt8], shown: String)] = [
            (Array("35.1\u{1B}[31m".utf8), #"35.1\x1B[31m"#),
            (Array("a\tb\r\n".utf8), #"a\x09b\x0D\x0A"#),
            (Array("\u{7F}".utf8), #"\x7F"#),
            // A bidirectional override would reorder the rest of the terminal line.
            (Array("abc\u{202E}def".utf8), #"abc\xE2\x80\xAEdef"#),
            (Array("x\u{2028}y".utf8), #"x\xE2\x80\xA8y"#),
            (Array("Z".utf8) + [0xC3] + Array("rich".utf8), #"Z\xC3rich"#),
            ([0xFF, 0xFE, 0x41], #"\xFF\xFEA"#),
            // An encoded surrogate and an overlong form are not UTF-8.
            ([0xED, 0xA0, 0x80], #"\xED\xA0\x80"#),
            ([0xC0, 0xAF], #"\xC0\xAF"#),
            (Array("ü".utf8) + [0x00], #"ü\x00"#),
        ]
        for (bytes, shown) in cases {
            let rendered = TextExcerpt.render(bytes, limit: 40)
            #expect(rendered == shown)
        }
    }

    @Test("A long value is cut after `limit` characters, counted as shown, with … only when something was cut")
    func limit() {
        let long = String(repeating: "日", count: 100)
        let cut = TextExcerpt.render(long, limit: 10)
        #expect(cut == String(repeating: "日", count: 10) + "…")
        let exact = TextExcerpt.render("日本", limit: 2)
        #expect(exact == "日本")
        let ascii = TextExcerpt.render(String(repeating: "a", count: 12), limit: 10)
        #expect(ascii == String(repeating: "a", count: 10) + "…")
        let escaped = TextExcerpt.render([0xFF, 0xFF, 0xFF], limit: 2)
        #expect(escaped == #"\xFF\xFF…"#)
    }

    @Test("Names for people: controls, separators and bidirectional overrides escaped; joiners, emoji and scripts kept")
    func peopleTextEscaped() {
        #expect(PeopleText.escaped("evil\u{202E}gnp.exe") == #"evil\u{202E}gnp.exe"#)
        #expect(PeopleText.escaped("a\u{2067}b\u{2069}\u{200F}") == #"a\u{2067}b\u{2069}\u{200F}"#)
        #expect(PeopleText.escaped("x\u{1B}[31m\n") == #"x\u{1B}[31m\n"#)
        for kept in ["東京駅", "مكة", "👨\u{200D}👩\u{200D}👧", "Cafe\u{301}", #"back\slash"#] {
            #expect(PeopleText.escaped(kept) == kept)
        }
    }
}
