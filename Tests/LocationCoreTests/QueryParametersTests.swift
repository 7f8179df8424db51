import LocationCore
import Testing

@Suite("Query parameter names and path segments, percent-decoded")
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
}
