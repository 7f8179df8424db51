package import HTTPTypes
package import Hummingbird
package import LocationCore
import NIOCore

extension ServerError: HTTPResponseError {
    /// The HTTP status.
    package var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    /// The headers of the answer: the JSON type, and `Retry-After`, `Allow` (405) or
    /// `WWW-Authenticate` (401) when they apply.
    package var headers: HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if !allowedMethods.isEmpty { headers[.allow] = allowedMethods.joined(separator: ", ") }
        if code == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return headers
    }

    /// The answer: ``status``, ``headers`` and the JSON ``body``.
    package var response: Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response { response }
}
