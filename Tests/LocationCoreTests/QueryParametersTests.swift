import LocSimTestHelpers
import LocationCore
import Testing

/// Query parameter names and values and path segments, percent-decoded as every route reads them.
@Suite(.ownThread)
struct QueryParametersTests {
    @Test("two hex digits of either case decode; + is a space only in a name")
    func decodes() {
        #expect(QueryParameters.name("l%61t") == "lat")
        #expect(QueryParameters.name("access%5ftoken") == "access_token")
        #expect(QueryParameters.name("a+b") == "a b")
        #expect(QueryParameters.pathSegment("al%69ce") == "alice")
        #expect(QueryParameters.pathSegment("a+b") == "a+b")
        #expect(QueryParameters.pathSegment("%E3%81%9F%E3%82%8D%E3%81%86") == "たろう")
    }

    @Test("a % without two hex digits after it stays as sent (a sign is no digit: %+f is not byte 15)")
    func leavesWhatIsNoEscape() {
        for kept in ["%+f", "%-1", "%zz", "%f", "%", "a%", "%0x10", "% 1"] {
            #expect(QueryParameters.pathSegment(kept[...]) == kept[...], "\(kept)")
        }
        #expect(QueryParameters.name("x%+f") == "x% f")
        #expect(QueryParameters.pathSegment("%+f%41") == "%+fA")
    }

    @Test("a % without two hex digits is kept as sent and marked malformed, for a reader that refuses it (a PostgreSQL URL)")
    func strictAndLenient() {
        let slash = PercentEncoding.decoded("a%2Fb".utf8, plusIsSpace: false)
        #expect(slash.bytes == Array("a/b".utf8) && !slash.malformed)
        for malformed in ["%", "%f", "%+f", "a%zz"] {
            let decoded = PercentEncoding.decoded(malformed.utf8, plusIsSpace: false)
            #expect(decoded.malformed, "\(malformed)")
            #expect(decoded.bytes == Array(malformed.utf8))
        }
        #expect(PercentEncoding.decoded("a+b".utf8, plusIsSpace: true).bytes == Array("a b".utf8))
    }

    @Test("a query splits into decoded pairs in order; + is a space in a name only; what is no UTF-8 stays as sent")
    func pairs() {
        let pairs = QueryParameters.pairs(of: "l%61t=%2B35.6&lng=+139&&flag&a+b=c+d&e=%ff&f=%C3%A9")
        #expect(pairs.map(\.name) == ["lat", "lng", "flag", "a b", "e", "f"])
        #expect(pairs.map(\.value) == ["+35.6", "+139", "", "c+d", "%ff", "é"])
        #expect(QueryParameters.pairs(of: nil).isEmpty && QueryParameters.pairs(of: "").isEmpty)
        #expect(QueryParameters.pairs(of: "=5").map(\.name) == [""])
        #expect(QueryParameters.name("%ff%41") == "%ff%41")
    }
}
