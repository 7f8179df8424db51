#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CGPS
import LocationCore

/// One decoded message from gpsd, reduced to what the provider acts on.
enum GPSDMessage: Sendable, Hashable {
    /// `VERSION`: the daemon's release.
    case version(release: String)
    /// `WATCH`: the daemon acknowledged the subscription.
    case watch
    /// `TPV`, mapped by ``Fix/init(gpsd:receivedAt:)``.
    case fix(Fix)
    /// `DEVICE`: a receiver was activated (`isActive`) or deactivated.
    case device(path: String, isActive: Bool)
    /// `ERROR`: gpsd's complaint, in its words.
    case error(String)
    /// Any other class (`SKY`, `DEVICES`, `GST`, ...), named.
    case other(String)
}

/// A libgps connection to one gpsd: the only place in the package that calls `gps_*`.
///
/// Every libgps status goes through ``check(_:_:_:)``, which turns a failure into a
/// ``GPSDError`` naming `host:port` and libgps's own words (`gps_errstr`). Not thread-safe: one
/// thread opens, reads and closes it. The only cross-thread operation is the
/// ``InterruptHandle``, which the owner must stop using before calling ``close()``.
final class GPSDConnection {
    let host: String
    let port: Int
    private let data: UnsafeMutablePointer<gps_data_t>
    private var isOpen: Bool
    private var message: [CChar]

    /// Wakes a thread blocked in ``waitForInput(timeout:)`` by shutting the socket down (not
    /// closing it, so the descriptor number cannot be reused under the reader).
    struct InterruptHandle: Sendable {
        fileprivate let descriptor: Int32
        func interrupt() { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Opens a TCP connection to gpsd. The corresponding C function is `gps_open`.
    ///
    /// - Throws: ``GPSDError/Code/connectionRefused`` naming `host:port` and libgps's reason.
    static func open(host: String, port: Int) throws(GPSDError) -> GPSDConnection {
        guard let data = CGPS_allocate() else {
            throw GPSDError(.connectionRefused, host: host, port: port, detail: "out of memory for gps_data_t")
        }
        errno = 0
        let status = CGPS_open(host, String(port), data)
        do {
            try check(status, .connectionRefused, "gps_open", host: host, port: port)
        } catch {
            CGPS_free(data)
            throw error
        }
        // libgps leaves the socket inheritable; a child process of ours must not hold it open.
        _ = fcntl(CGPS_fd(data), F_SETFD, FD_CLOEXEC)
        return GPSDConnection(host: host, port: port, data: data, isOpen: true)
    }

    /// Takes ownership of `data` (freed in `deinit`).
    private init(host: String, port: Int, data: UnsafeMutablePointer<gps_data_t>, isOpen: Bool) {
        self.host = host
        self.port = port
        self.data = data
        self.isOpen = isOpen
        // Larger than any report libgps buffers (2 × GPS_JSON_RESPONSE_MAX, 20 KiB in API 14+).
        self.message = [CChar](repeating: 0, count: isOpen ? 32 * 1024 : 1)
    }

    deinit {
        close()
        CGPS_free(data)
    }

    var interruptHandle: InterruptHandle { InterruptHandle(descriptor: CGPS_fd(data)) }

    /// Subscribes to JSON reports, optionally from one device only. The corresponding C
    /// function is `gps_send` (`gps_stream` is avoided: its parameter types changed across APIs).
    ///
    /// - Throws: ``GPSDError/Code/sendFailed``.
    func watch(device: String?) throws(GPSDError) {
        var command = #"?WATCH={"enable":true,"json":true"#
        if let device { command += #","device":"# + Self.jsonString(device) }
        command += "};\n"
        errno = 0
        try check(CGPS_send(data, command), .sendFailed, "gps_send")
    }

    /// Waits up to `timeout` for a message. The corresponding C function is `gps_waiting`.
    ///
    /// - Returns: `true` when a message is buffered or the socket became readable (also when the
    ///   peer closed it, which the next ``read(receivedAt:)`` reports); `false` on timeout.
    func waitForInput(timeout: Duration) -> Bool {
        CGPS_waiting(data, Int32(clamping: timeout.wholeMicroseconds))
    }

    /// Reads and decodes one message. The corresponding C function is `gps_read`.
    ///
    /// - Parameter receivedAt: The wall-clock time of reception, used to stamp status reports
    ///   that carry no time of their own.
    /// - Returns: The message, or `nil` when nothing complete was available yet.
    /// - Throws: ``GPSDError/Code/daemonClosed`` when the daemon closed the connection or the
    ///   read failed; ``GPSDError/Code/malformedReport`` when libgps could not decode it.
    func read(receivedAt: Date) throws(GPSDError) -> GPSDMessage? {
        errno = 0
        message[0] = 0
        let count = message.withUnsafeMutableBufferPointer { buffer in
            CGPS_read(data, buffer.baseAddress, Int32(buffer.count))
        }
        try check(count, .daemonClosed, "gps_read")
        guard count > 0 else { return nil }
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return try classify(text, receivedAt: receivedAt)
    }

    /// Closes the connection (idempotent). The corresponding C function is `gps_close`.
    func close() {
        guard isOpen else { return }
        isOpen = false
        _ = CGPS_close(data)
    }

    /// Decodes recorded gpsd JSON lines without a daemon, in order, into one `gps_data_t` (as a
    /// live connection does, so state carried between reports shows). The corresponding C
    /// function is `gps_unpack`.
    ///
    /// - Throws: ``GPSDError/Code/malformedReport`` naming the line number when libgps rejects a
    ///   line or it has no `"class"`.
    static func decode(_ lines: [String], receivedAt: Date, source: String = "recorded")
        throws(GPSDError) -> [GPSDMessage]
    {
        guard let data = CGPS_allocate() else {
            throw GPSDError(.malformedReport, host: source, port: 0, detail: "out of memory for gps_data_t")
        }
        let decoder = GPSDConnection(host: source, port: 0, data: data, isOpen: false)
        var messages: [GPSDMessage] = []
        for (index, line) in lines.enumerated() {
            errno = 0
            let status = CGPS_unpack(line, data)
            // gps_unpack answers -1 (or, in some releases, a positive JSON_ERR_* code) for text it
            // cannot decode; gpsd 3.22's answers 0 even for truncated JSON, which classify catches.
            guard status == 0 else {
                throw GPSDError(
                    .malformedReport, host: source, port: 0,
                    detail: "line \(index + 1): gps_unpack rejected \(Self.excerpt(line)) (status \(status))",
                    underlyingCode: status)
            }
            do {
                messages.append(try decoder.classify(line, receivedAt: receivedAt))
            } catch {
                throw GPSDError(
                    .malformedReport, host: source, port: 0, detail: "line \(index + 1): \(error.detail)")
            }
        }
        return messages
    }

    // MARK: - Internals

    /// Names the message by its `"class"` and reads what the provider needs from `gps_data_t`.
    private func classify(_ text: String, receivedAt: Date) throws(GPSDError) -> GPSDMessage {
        guard let messageClass = Self.messageClass(of: text) else {
            throw GPSDError(.malformedReport, host: host, port: port, detail: "no \"class\" in \(Self.excerpt(text))")
        }
        // libgps decodes what it can of a damaged object without saying so; refuse a report we
        // map (TPV, DEVICE) that is cut short or unbalanced rather than map half of it. Other
        // classes are only named, so a damaged SKY does not end a session.
        guard messageClass != "TPV" && messageClass != "DEVICE" || Self.isBalancedObject(text) else {
            throw GPSDError(
                .malformedReport, host: host, port: port, detail: "truncated or unbalanced JSON \(Self.excerpt(text))")
        }
        switch messageClass {
        case "TPV":
            return .fix(Fix(gpsd: data, receivedAt: receivedAt))
        case "DEVICE":
            let path = String(cString: CGPS_devicePath(data))
            let activated = data.pointee.dev.activated
            return .device(path: path, isActive: activated.tv_sec != 0 || activated.tv_nsec != 0)
        case "VERSION":
            return .version(release: String(cString: CGPS_release(data)))
        case "WATCH":
            return .watch
        case "ERROR":
            return .error(String(cString: CGPS_errorMessage(data)))
        default:
            return .other(messageClass)
        }
    }

    /// Turns a negative libgps status into a ``GPSDError``; passes other values through.
    ///
    /// libgps reports failures as -1 with `errno` holding either a negative `NL_*` code (from
    /// `gps_open`, described by `gps_errstr`) or an ordinary `errno` (described by `strerror`).
    @discardableResult
    private func check(_ status: Int32, _ code: GPSDError.Code, _ function: String) throws(GPSDError) -> Int32 {
        try Self.check(status, code, function, host: host, port: port)
    }

    @discardableResult
    private static func check(
        _ status: Int32, _ code: GPSDError.Code, _ function: String, host: String, port: Int
    ) throws(GPSDError) -> Int32 {
        guard status < 0 else { return status }
        let error = errno
        let reason: String
        if error < 0 {
            reason = String(cString: CGPS_errstr(error))
        } else if error > 0 {
            reason = String(cString: strerror(error))
        } else {
            reason = "end of stream"
        }
        throw GPSDError(code, host: host, port: port, detail: "\(function): \(reason)", underlyingCode: error)
    }

    /// The value of the leading `"class":"..."` member of a gpsd JSON object.
    static func messageClass(of text: String) -> String? {
        let utf8 = Array(text.utf8.prefix(64))
        let key = Array(#""class":""#.utf8)
        guard utf8.count > key.count else { return nil }
        for start in 0...(utf8.count - key.count) where utf8[start..<(start + key.count)].elementsEqual(key) {
            let valueStart = start + key.count
            guard let end = utf8[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            return String(decoding: utf8[valueStart..<end], as: UTF8.self)
        }
        return nil
    }

    /// `true` when `text` is one JSON object whose braces and brackets balance outside strings
    /// and close exactly at its end (trailing whitespace aside).
    static func isBalancedObject(_ text: String) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        var closed = false
        for byte in text.utf8 {
            if closed {
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return false }
                continue
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 { return false }
                if depth == 0 { closed = true }
            default:
                if depth == 0, !(byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09) { return false }
            }
        }
        return closed
    }

    /// A JSON string literal for `value` (the `?WATCH` command's device path).
    static func jsonString(_ value: String) -> String {
        JSONText.quoted(value)
    }

    private static func excerpt(_ text: String) -> String {
        let trimmed = text.filter { $0 != "\r" && $0 != "\n" }
        return trimmed.count > 80 ? "'\(trimmed.prefix(80))...'" : "'\(trimmed)'"
    }
}
