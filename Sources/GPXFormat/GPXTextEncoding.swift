/// The character encoding a ``GPXReader`` decodes its input from.
///
/// The reader works on UTF-8 and transcodes everything else while streaming, chunk by chunk, so
/// memory stays flat and positions in errors are lines and characters whatever the encoding.
///
/// How the encoding is chosen, in order:
/// 1. A byte order mark decides: `EF BB BF` is UTF-8, `FF FE` UTF-16LE, `FE FF` UTF-16BE (an
///    encoding declaration that says otherwise is ignored: the mark is what the bytes are).
///    Without a mark, a document that starts with `<?` in UTF-16 (`3C 00 3F 00` or
///    `00 3C 00 3F`) is UTF-16 of that byte order.
/// 2. Otherwise the XML declaration's `encoding`: UTF-8 or US-ASCII; ISO-8859-1 (also `latin1`,
///    `l1`, `iso_8859-1`, `cp819`, …); windows-1252 (also `cp1252`); UTF-16, whose bytes here are
///    plainly 8-bit, is read as if undeclared. Any other name is
///    ``GPXParseError/Code/unsupportedEncoding``, naming it.
/// 3. Without a declared encoding the input is UTF-8, checked as it is read; from the first byte
///    sequence that is not UTF-8 on, it is windows-1252 (what such files almost always are: an
///    ISO-8859-1 or windows-1252 export with no declaration). Everything before that byte was
///    valid UTF-8, which in a windows-1252 file means plain ASCII unless an accented capital
///    happens to precede a symbol such as `°` or `©`.
///
/// windows-1252's five unassigned bytes (`81`, `8D`, `8F`, `90`, `9D`) read as the C1 controls
/// of the same number, as Windows and web browsers read them. UTF-32 and multi-byte legacy
/// encodings (Shift_JIS, GB2312, …) are not supported; convert with
/// `iconv -f NAME -t UTF-8 in.gpx > out.gpx`.
public enum GPXTextEncoding: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case utf8 = "UTF-8"
    case utf16LittleEndian = "UTF-16LE"
    case utf16BigEndian = "UTF-16BE"
    case isoLatin1 = "ISO-8859-1"
    case windows1252 = "windows-1252"

    public var description: String { rawValue }
}
