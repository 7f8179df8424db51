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
    /// A `SKY` the provider could not read (why, and the report's start), the first of a run of
    /// them: the device's fixes go without a sky until a `SKY` is read again.
    case skyUnreadable(String)
    /// Any other class (`DEVICES`, `GST`, ...), named; also a `SKY` that is not read, after the
    /// first of a run.
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
    /// Bytes received from gpsd and not yet a whole report (locsim splits the stream into
    /// lines itself, so that every line is checked before libgps sees it).
    private var pending: [UInt8] = []
    /// Where the first unread byte of ``pending`` is.
    private var pendingStart = 0
    /// Where `recv` writes, made once: a read copies what arrived into ``pending`` and costs no
    /// more than that (growing ``pending`` by a whole chunk of zeros for every read cost a 16 KiB
    /// fill each time, most of the reading thread's time in a debug build).
    private var received = [UInt8](repeating: 0, count: 16 * 1024)
    /// The newest `SKY` and the device it came from: it goes with that device's next fixes.
    private var sky: (device: String, report: ReceiverReport.Sky)?
    /// Whether the last `SKY` could not be read (a run of them is reported once).
    private var skyUnreadable = false

    /// The longest report accepted: gpsd's own limit is GPS_JSON_RESPONSE_MAX (10 KiB in API 14+).
    static let maximumReportLength = 32 * 1024

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
        errno = 0
        try check(CGPS_send(data, Self.watchCommand(device: device)), .sendFailed, "gps_send")
    }

    /// `?WATCH={"enable":true,"json":true}` with the device, when given, as a JSON string.
    static func watchCommand(device: String?) -> String {
        let watch = JSONWriter.objectText(capacity: 64) { json in
            json.member("enable", true)
            json.member("json", true)
            json.member("device", ifPresent: device)
        }
        return "?WATCH=" + watch + ";\n"
    }

    /// Waits up to `timeout` for a message (`poll` on gpsd's socket).
    ///
    /// - Returns: `true` when a whole report is buffered or the socket became readable (also when
    ///   the peer closed it or the socket failed, which the next ``read(receivedAt:)`` reports);
    ///   `false` on timeout or when a signal interrupted the wait.
    func waitForInput(timeout: Duration) -> Bool {
        if pending[pendingStart...].contains(0x0A) { return true }
        var descriptor = pollfd(fd: CGPS_fd(data), events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: (timeout.wholeMicroseconds + 999) / 1000)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready < 0 { return errno != EINTR }
        return ready > 0
    }

    /// Reads and decodes one message: receives what the socket holds, takes one whole line, and
    /// decodes it as ``decode(_:receivedAt:source:)`` does.
    ///
    /// libgps's own `gps_read` is not used: it hands every line to `gps_unpack` unchecked, and
    /// gpsd 3.22's `gps_unpack` loops forever on some malformed reports (found by fuzzing; see
    /// docs/development/fuzzing.md). Here a line that is not valid JSON never reaches libgps.
    ///
    /// - Parameter receivedAt: The wall-clock time of reception, used to stamp status reports
    ///   that carry no time of their own.
    /// - Returns: The message, or `nil` when nothing complete was available yet.
    /// - Throws: ``GPSDError/Code/daemonClosed`` when the daemon closed the connection or the
    ///   read failed; ``GPSDError/Code/malformedReport`` when the report cannot be decoded or is
    ///   longer than ``maximumReportLength``.
    func read(receivedAt: Date) throws(GPSDError) -> GPSDMessage? {
        if let line = takeLine() { return try unpack(line, receivedAt: receivedAt) }
        if pendingStart > 0 {
            pending.removeSubrange(..<pendingStart)
            pendingStart = 0
        }
        errno = 0
        let count = received.withUnsafeMutableBytes { buffer in
            recv(CGPS_fd(data), buffer.baseAddress!, buffer.count, Int32(MSG_DONTWAIT))
        }
        if count > 0 { pending.append(contentsOf: received[..<count]) }
        if count == 0 {
            throw GPSDError(.daemonClosed, host: host, port: port, detail: "gpsd closed the connection")
        }
        if count < 0 {
            let error = errno
            if error == EINTR || error == EAGAIN || error == EWOULDBLOCK { return nil }
            throw GPSDError(
                .daemonClosed, host: host, port: port, detail: "recv: \(String(cString: strerror(error)))",
                underlyingCode: error)
        }
        if let line = takeLine() { return try unpack(line, receivedAt: receivedAt) }
        if pending.count - pendingStart > Self.maximumReportLength {
            throw GPSDError(
                .malformedReport, host: host, port: port,
                detail: "a report longer than \(Self.maximumReportLength) bytes without a line end")
        }
        return nil
    }

    /// The next whole line of ``pending`` without its line end, or nil.
    private func takeLine() -> String? {
        guard let newline = pending[pendingStart...].firstIndex(of: 0x0A) else { return nil }
        var end = newline
        if end > pendingStart, pending[end - 1] == 0x0D { end -= 1 }
        let line = String(decoding: pending[pendingStart..<end], as: UTF8.self)
        pendingStart = newline + 1
        return line
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
            do {
                messages.append(try decoder.unpack(line, receivedAt: receivedAt))
            } catch {
                throw GPSDError(
                    .malformedReport, host: source, port: 0, detail: "line \(index + 1): \(error.detail)",
                    underlyingCode: error.underlyingCode)
            }
        }
        return messages
    }

    // MARK: - Internals

    /// The first of the rules of `unpack(_:receivedAt:)` that `report` breaks, or nil when
    /// libgps may read it.
    private static func firstRuleBroken(by report: JSONSyntax.Report, messageClass: String) -> String? {
        if let problem = report.problem { return problem }
        if report.topLevelClass == nil { return "no \"class\" member at the top level" }
        if !report.classComesFirst { return "\"class\" is not the first member, as gpsd writes it" }
        if report.classMembers > 1 { return "more than one \"class\" member, which gpsd never writes" }
        if report.longestName > maximumNameLength {
            return "a member name longer than \(maximumNameLength) bytes, which libgps cannot hold"
        }
        if let problem = report.skyProblem { return problem }
        if report.depth > (messageClass == "SKY" ? 3 : 1) {
            return "a nested array or object, which gpsd never writes in \(messageClass)"
        }
        return nil
    }

    /// Checks one report, has libgps decode it (`gps_unpack`) when the provider needs its
    /// content, and names it by its `"class"`.
    ///
    /// gpsd 3.22's `gps_unpack` loops forever on some text (found by fuzzing, docs/development/fuzzing.md):
    /// invalid JSON, members before `"class"` (a nested class, a long name or value, an array),
    /// and any bad value inside an array of objects (`DEVICES`, `SKY`). So libgps sees only the
    /// classes the provider maps, which gpsd writes as flat objects (TPV, DEVICE, VERSION,
    /// ERROR) or, for SKY, with one array of flat satellites (``JSONSyntax/skyProblem(_:)``),
    /// as valid JSON compacted as gpsd writes it, with `"class"` first and member names
    /// libgps can hold; one that breaks a rule is a
    /// ``GPSDError/Code/malformedReport``, except a SKY: one that breaks a rule or that libgps
    /// rejects (a newer gpsd's satellite members, say) is reported (``GPSDMessage/skyUnreadable(_:)``,
    /// once per run of them) and the fixes go without a sky until a SKY is read again, so a sky
    /// never ends a session. Every other class is only named, never decoded.
    private func unpack(_ text: String, receivedAt: Date) throws(GPSDError) -> GPSDMessage {
        let report = JSONSyntax.check(text)
        let named = report.topLevelClass ?? Self.messageClass(of: text)
        guard let messageClass = named else {
            throw GPSDError(.malformedReport, host: host, port: port, detail: "no \"class\" in \(Self.excerpt(text))")
        }
        guard Self.decodedClasses.contains(messageClass) else {
            return messageClass == "WATCH" ? .watch : .other(messageClass)
        }
        if let problem = Self.firstRuleBroken(by: report, messageClass: messageClass) {
            guard messageClass != "SKY" else { return unreadableSky("\(problem) in \(Self.excerpt(text))") }
            throw GPSDError(.malformedReport, host: host, port: port, detail: "\(problem) in \(Self.excerpt(text))")
        }
        errno = 0
        let status = CGPS_unpack(String(decoding: report.compact, as: UTF8.self), data)
        // gps_unpack answers -1 (or, in some releases, a positive JSON_ERR_* code) for text it
        // cannot decode.
        if status != 0, messageClass == "SKY" {
            return unreadableSky("gps_unpack rejected \(Self.excerpt(text)) (status \(status))")
        }
        guard status == 0 else {
            throw GPSDError(
                .malformedReport, host: host, port: port,
                detail: "gps_unpack rejected \(Self.excerpt(text)) (status \(status))", underlyingCode: status)
        }
        switch messageClass {
        case "TPV":
            var fix = Fix(gpsd: data, receivedAt: receivedAt)
            // The device's newest sky goes with each of its fixes.
            if let sky, sky.device == String(cString: CGPS_devicePath(data)) {
                var receiver = fix.receiver ?? ReceiverReport()
                receiver.sky = sky.report
                fix.receiver = receiver
            }
            return .fix(fix)
        case "SKY":
            sky = (String(cString: CGPS_devicePath(data)), ReceiverReport.Sky(gpsd: data))
            skyUnreadable = false
            return .other(messageClass)
        case "DEVICE":
            let path = String(cString: CGPS_devicePath(data))
            let activated = data.pointee.dev.activated
            let isActive = activated.tv_sec != 0 || activated.tv_nsec != 0
            if !isActive, sky?.device == path { sky = nil }
            return .device(path: path, isActive: isActive)
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

    /// Drops the sky a `SKY` that cannot be read replaces; reports the first of a run.
    private func unreadableSky(_ reason: String) -> GPSDMessage {
        sky = nil
        defer { skyUnreadable = true }
        return skyUnreadable ? .other("SKY") : .skyUnreadable(reason)
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

    /// The value of the `"class"` member of a gpsd JSON object, looked for in its first
    /// ``classSearchLength`` bytes (gpsd writes it first). JSON whitespace may stand around the
    /// colon (`"class" : "TPV"`), as in reports written by other tools.
    static func messageClass(of text: String) -> String? {
        let utf8 = Array(text.utf8.prefix(classSearchLength))
        let key = Array(#""class""#.utf8)
        guard utf8.count > key.count else { return nil }
        func skipSpace(_ index: inout Int) {
            while index < utf8.count, utf8[index].isASCIIWhitespace { index += 1 }
        }
        for start in 0...(utf8.count - key.count) where utf8[start..<(start + key.count)].elementsEqual(key) {
            var index = start + key.count
            skipSpace(&index)
            guard index < utf8.count, utf8[index] == UInt8(ascii: ":") else { continue }
            index += 1
            skipSpace(&index)
            guard index < utf8.count, utf8[index] == UInt8(ascii: "\"") else { return nil }
            let valueStart = index + 1
            guard let end = utf8[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            return String(decoding: utf8[valueStart..<end], as: UTF8.self)
        }
        return nil
    }

    /// The most satellites a `SKY` may list: libgps's skyview holds MAXCHANNELS (140 in gpsd 3.22).
    static let maximumSatellites = Int(CGPS_maximumSatellites)

    /// The longest member name libgps keeps (JSON_ATTR_MAX − 1).
    static let maximumNameLength = 30

    /// The classes whose content the provider reads through libgps.
    static let decodedClasses: Set<String> = ["TPV", "SKY", "DEVICE", "VERSION", "ERROR"]

    /// How far into a report ``messageClass(of:)`` looks for `"class"`.
    static let classSearchLength = 128

    private static func excerpt(_ text: String) -> String {
        "'" + TextExcerpt.render(text.filter { $0 != "\r" && $0 != "\n" }, limit: 80) + "'"
    }
}
