/// Exact powers of ten up to 10²²: every one is representable in a Double.
private let exactPowersOfTen: [Double] = (0...22).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
}

/// Parses an XML-schema decimal or double (`-12.345`, `+1`, `.5`, `1e-3`) from bytes, trimming
/// XML whitespace. Correctly rounded: the common case (≤ 15 significant digits, small exponent)
/// is one exact integer divided or multiplied by an exact power of ten; anything else goes to the
/// standard library's parser.
func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    var start = 0
    var end = bytes.count
    while start < end, isXMLSpace(bytes[start]) { start += 1 }
    while end > start, isXMLSpace(bytes[end - 1]) { end -= 1 }
    guard start < end else { return nil }

    var i = start
    var negative = false
    if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
        negative = bytes[i] == UInt8(ascii: "-")
        i += 1
    }
    var mantissa: UInt64 = 0
    var significant = 0
    var fractionDigits = 0
    var sawDigit = false
    var sawDot = false
    var fast = true
    while i < end {
        let c = bytes[i]
        if c >= 48 && c <= 57 {
            sawDigit = true
            if mantissa == 0 && c == 48 {
                // Leading zeros carry no significance.
            } else {
                significant += 1
            }
            if significant <= 18 {
                mantissa = mantissa * 10 + UInt64(c - 48)
                if sawDot { fractionDigits += 1 }
            } else {
                fast = false
                if !sawDot { fractionDigits -= 1 }
            }
        } else if c == UInt8(ascii: ".") && !sawDot {
            sawDot = true
        } else {
            break
        }
        i += 1
    }
    guard sawDigit else { return nil }
    var exponent = 0
    if i < end {
        guard bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") else { return nil }
        i += 1
        var expNegative = false
        if i < end, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            expNegative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var sawExpDigit = false
        while i < end, bytes[i] >= 48, bytes[i] <= 57 {
            exponent = min(exponent * 10 + Int(bytes[i] - 48), 100_000)
            sawExpDigit = true
            i += 1
        }
        guard sawExpDigit, i == end else { return nil }
        if expNegative { exponent = -exponent }
    }
    let scale = exponent - fractionDigits
    if fast, mantissa < (1 << 53), scale >= -22, scale <= 22 {
        let m = Double(mantissa)
        let value = scale < 0 ? m / exactPowersOfTen[-scale] : m * exactPowersOfTen[scale]
        return negative ? -value : value
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    return Double(text)
}

/// Parses a non-negative or negative base-10 integer, trimming XML whitespace.
func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var start = 0
    var end = bytes.count
    while start < end, isXMLSpace(bytes[start]) { start += 1 }
    while end > start, isXMLSpace(bytes[end - 1]) { end -= 1 }
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

@inline(__always) func isXMLSpace(_ c: UInt8) -> Bool {
    c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
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
