package import HTTPTypes
package import Hummingbird
import LocationCore
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hummingbird's router as ``NearbyServer``'s routes are added to it: each route goes to the
/// router, and its path and method are remembered in a ``RouteMethodTable``, so a request on a
/// path that exists with a method it does not take is a 405 naming the methods it does (the
/// router alone would answer 404).
///
/// Anything registered through it with Hummingbird's `get`, `post`, `group`… is counted: the
/// nearby contract's routes and those ``AddedRoutes`` brings (the players' control API).
package struct ServerRoutes: RouterMethods {
    package typealias Context = NearbyRequestContext

    let base: any RouterMethods<Context>
    let table: RouteMethodTable

    @discardableResult
    package func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        base.on(path, method: method, responder: responder)
        table.add(path, method: method)
        return self
    }

    @discardableResult
    package func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        ServerRoutes(base: base.add(middleware: middleware), table: table)
    }
}

/// Every route's path with the methods it takes, matched by a Hummingbird router of its own
/// (one `GET` per path answering its methods), so a path is matched here exactly as the real
/// router matches it.
final class RouteMethodTable: Sendable {
    private struct Entry {
        var path: RouterPath
        var methods: [HTTPRequest.Method]
    }

    private let entries = Locked<[Entry]>([])
    private let matcher = Locked<RouterResponder<NearbyRequestContext>?>(nil)

    func add(_ path: RouterPath, method: HTTPRequest.Method) {
        entries.withLock { entries in
            if let index = entries.firstIndex(where: { $0.path.description == path.description }) {
                entries[index].methods.append(method)
            } else {
                entries.append(Entry(path: path, methods: [method]))
            }
        }
    }

    /// Every route's path (as Hummingbird spells it, `/players/{name}`) and its methods, in the
    /// order they were added.
    var routes: [(path: String, methods: [HTTPRequest.Method])] {
        entries.withLock { $0.map { (path: $0.path.description, methods: $0.methods) } }
    }

    /// Builds the matcher from the routes added so far (once every route is in).
    func seal() {
        let router = Router(context: NearbyRequestContext.self)
        for entry in entries.withLock({ $0 }) {
            var methods = entry.methods.map(\.rawValue)
            // HEAD is answered wherever GET is (the router makes it from the GET route).
            if methods.contains("GET"), !methods.contains("HEAD") { methods.append("HEAD") }
            let allow = methods.joined(separator: ", ")
            router.get(entry.path) { _, _ in Response(status: .noContent, headers: [.allow: allow]) }
        }
        let responder = router.buildResponder()
        matcher.withLock { $0 = responder }
    }

    /// The methods the path of `request` takes, or nil when no route has that path.
    func methods(for request: Request, context: NearbyRequestContext) async -> [String]? {
        guard let matcher = matcher.withLock({ $0 }) else { return nil }
        var head = request.head
        head.method = .get
        do {
            let answer = try await matcher.respond(to: Request(head: head, body: RequestBody(buffer: ByteBuffer())), context: context)
            return answer.headers[.allow]?.split(separator: ",").map { String($0.drop(while: { $0 == " " })) }
        } catch {
            return nil  // no route: the router's not-found error
        }
    }
}

/// Refuses a request that would change the server's state (any method but GET and HEAD: add,
/// control or remove a player, reset the audit) when a browser says it comes from a page of
/// another origin: otherwise any site open in the tester's browser could do so to a server on
/// their machine, which needs no token on 127.0.0.1 (cross-site request forgery; a `text/plain`
/// or form POST needs no preflight). Browsers send `Origin` with such requests; the live map,
/// served by this server, is of its origin. Clients that are not browsers send no `Origin` and
/// are not affected. A 403 naming `Origin`.
///
/// A page's origin equal to the request's `Host` is not enough: a site whose name the attacker
/// points at 127.0.0.1 after the page has loaded (DNS rebinding) has both. So the `Host` must
/// also be a name of this server: an IP address, `localhost` (or a name under it), the
/// `--host` it listens on, or this machine's own name (with or without `.local`).
struct SameOriginMiddleware: RouterMiddleware {
    typealias Context = NearbyRequestContext
    /// The names the server answers to besides IP addresses and `localhost`, lowercased.
    let ownNames: Set<String>

    /// - Parameter host: The address or name the server listens on (`--host`).
    init(host: String) {
        var names: Set<String> = [host.lowercased()]
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count - 1) == 0 {
            let machine = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
            if !machine.isEmpty { names.formUnion([machine, machine + ".local"]) }
        }
        ownNames = names
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.method != .get, request.method != .head, let origin = request.headers[.origin],
            !isSameOrigin(origin, authority: request.head.authority)
        {
            throw ServerError(
                .forbidden, status: 403,
                "a page of another origin (\(TextExcerpt.render(origin, limit: 64))) may not change this server's players or audit",
                parameter: "Origin")
        }
        return try await next(request, context)
    }

    /// Whether `origin` (`http://127.0.0.1:8080`) is the server the request was sent to
    /// (its `Host`, `authority`), by a name of this server. `null` (a sandboxed page, a file)
    /// is no origin of this server.
    func isSameOrigin(_ origin: String, authority: String?) -> Bool {
        guard let authority, !authority.isEmpty, isOwnName(Self.hostName(of: authority.lowercased())) else { return false }
        return origin.lowercased() == "http://" + authority.lowercased()
    }

    /// `authority` without its port: `127.0.0.1:8080` → `127.0.0.1`, `[::1]:8080` → `::1`.
    static func hostName(of authority: String) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    private func isOwnName(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || ownNames.contains(host) { return true }
        // An IP address cannot be rebound to another.
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

/// Refuses a request without the server's bearer token (``TokenRule``): a 401 naming what is
/// missing, before the route runs.
struct TokenMiddleware: RouterMiddleware {
    typealias Context = NearbyRequestContext
    let rule: TokenRule

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let refusal = rule.refusal(authorization: request.headers[.authorization]) {
            throw ServerError(.unauthorized, status: 401, refusal)
        }
        return try await next(request, context)
    }
}
