import LocationCore

/// Parses an XML-schema decimal or double (`-12.345`, `+1`, `.5`, `1e-3`) from bytes, trimming
/// XML whitespace; correctly rounded (``DecimalNumber`` does the reading).
func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    DecimalNumber(parsing: trimmingXMLSpace(bytes))?.value
}

/// Parses a non-negative or negative base-10 integer, trimming XML whitespace.
func parseInteger(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
    let bytes = trimmingXMLSpace(text)
    var start = bytes.startIndex
    let end = bytes.endIndex
    guard start < end else { return nil }
    var negative = false
    if bytes[start] == UInt8(ascii: "-") || bytes[start] == UInt8(ascii: "+") {
        negative = bytes[start] == UInt8(ascii: "-")
        start += 1
    }
    guard start < end, end - start <= 18 else { return nil }
    var value = 0
    for i in start..<end {
        let d = Int(bytes[i]) - 48
        guard d >= 0 && d <= 9 else { return nil }
        value = value * 10 + d
    }
    return negative ? -value : value
}

/// The bytes without leading and trailing XML whitespace.
func trimmingXMLSpace(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    var start = bytes.startIndex
    var end = bytes.endIndex
    while start < end, bytes[start].isASCIIWhitespace { start += 1 }
    while end > start, bytes[end - 1].isASCIIWhitespace { end -= 1 }
    return UnsafeBufferPointer(rebasing: bytes[start..<end])
}


/// Formats a Double as a plain decimal (no exponent, as xsd:decimal requires) that parses back to
/// exactly the same value: the shortest round-trip digits with the decimal point moved.
func formatDecimal(_ value: Double) -> String {
    let text = value.description
    guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) else {
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
    var mantissa = String(text[..<e])
    guard let exponent = Int(text[text.index(after: e)...]) else { return text }
    let negative = mantissa.hasPrefix("-")
    if negative { mantissa.removeFirst() }
    let dot = mantissa.firstIndex(of: ".")
    let integerDigits = dot.map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
    var digits = mantissa.filter { $0 != "." }
    var pointPosition = integerDigits + exponent
    if pointPosition <= 0 {
        digits = String(repeating: "0", count: 1 - pointPosition) + digits
        pointPosition = 1
    } else if pointPosition > digits.count {
        digits += String(repeating: "0", count: pointPosition - digits.count)
    }
    var whole = String(digits.prefix(pointPosition))
    var fraction = String(digits.dropFirst(pointPosition))
    while fraction.hasSuffix("0") { fraction.removeLast() }
    if whole.isEmpty { whole = "0" }
    return (negative ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
}
