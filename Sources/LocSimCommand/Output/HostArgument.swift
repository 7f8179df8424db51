import ArgumentParser

/// A `--host` value as every command reads it: a name, an IPv4 address, or an IPv6 address with
/// or without the brackets a URL puts round it (`::1`, `[::1]`), which name resolution takes bare.
enum HostArgument {
    static func parse(_ text: String) throws -> String {
        guard text.hasPrefix("[") || text.hasSuffix("]") else {
            guard !text.isEmpty else { throw ValidationError("a host must not be empty") }
            return text
        }
        guard text.hasPrefix("["), text.hasSuffix("]"), text.count > 2, text.dropFirst().dropLast().contains(":") else {
            throw ValidationError("brackets go round an IPv6 address, such as [::1]")
        }
        return String(text.dropFirst().dropLast())
    }
}
