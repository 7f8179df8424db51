import LocationCore
import Testing
import LocSimTestHelpers

/// ``HostPort``: the package's one `HOST[:PORT]` reader (`replay --gpsd`, `serve --player NAME=gpsd://…`).
@Suite(.ownThread) struct HostPortTests {
    static func read(_ text: String) throws(ConfigurationError) -> HostPort {
        try HostPort(parsing: text, parameter: "--gpsd", defaultHost: "127.0.0.1", defaultPort: 2947)
    }

    @Test("Host and port, either left out for its default; an IPv6 address in brackets, shown in brackets", arguments: [
        ("", "127.0.0.1", 2947, "127.0.0.1:2947"), ("gpsd.local", "gpsd.local", 2947, "gpsd.local:2947"),
        ("10.0.0.2:3000", "10.0.0.2", 3000, "10.0.0.2:3000"), (":2948", "127.0.0.1", 2948, "127.0.0.1:2948"),
        ("[::1]:2947", "::1", 2947, "[::1]:2947"), ("[fe80::1]", "fe80::1", 2947, "[fe80::1]:2947"),
        ("[]:65535", "127.0.0.1", 65535, "127.0.0.1:65535"),
    ])
    func read(text: String, host: String, port: Int, shown: String) throws {
        let address = try Self.read(text)
        #expect(address == HostPort(host: host, port: port))
        #expect(address.description == shown)
    }

    @Test("Anything else names the parameter and what is wrong", arguments: [
        ("127.0.0.1:99999", "the port must be a number within 1...65535, got '99999'"),
        ("127.0.0.1:0", "got '0'"), ("host:", "got ''"), ("host:x", "got 'x'"), ("[::1]:", "got ''"),
        ("[::1", "'[::1' has no closing ']'"), ("[::1]2947", "expected ':PORT' after '[::1]', got '2947'"),
        ("::1", "'::1' has more than one ':' (an IPv6 address goes in brackets: [::1]:2947)"),
        ("fe80::1:2947", "'fe80::1:2947' has more than one ':'"),
    ])
    func refused(text: String, message: String) {
        #expect {
            try Self.read(text)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.parameter == "--gpsd" && error.message.contains(message)
        }
    }
}
