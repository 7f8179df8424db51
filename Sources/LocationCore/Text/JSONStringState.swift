/// Where a byte of JSON text stands relative to strings, as the bytes go by one at a time: the
/// one piece of state a byte scanner needs so that braces, brackets and whitespace inside a
/// string (`"a } b"`, `"\""`) are not taken for structure.
///
/// Package access: LocationGPSD compacts gpsd's reports with it, SwarmHTTP counts places in an
/// answer as it streams in.
package struct JSONStringState: Sendable {
    /// True between a string's opening quote and its closing one.
    package private(set) var inString = false
    private var escaped = false

    package init() {}

    /// Takes the next byte; true when it belongs to a string, its two quotes included.
    @inline(__always)
    package mutating func consume(_ byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return true
        }
        if byte == UInt8(ascii: "\"") {
            inString = true
            return true
        }
        return false
    }
}
