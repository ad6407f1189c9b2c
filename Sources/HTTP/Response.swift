import Foundation
import Support

/// An HTTP response as a Swift value.
package struct Response: Sendable {
    /// The media type of every JSON body.
    package static let jsonContentType = "application/json; charset=utf-8"

    /// The status code.
    package var status: Int
    /// The header fields; the listener adds `Content-Length` and `Date`.
    package var headers: HTTPHeaders
    /// The body bytes (a copy-on-write array: a cached body is shared, not copied).
    package var body: [UInt8]
    /// `body` prepared once for many sends (its tag, its gzip form), or nil; `ContentNegotiation` uses it.
    package var prepared: PreparedBody?
    /// `body` as one shared object, for a reply made once and sent many times (`PreparedBody`'s answers):
    /// the listener sends it by reference. Counts only while it holds `body`'s very storage
    /// (`SharedBytes.isStorage(of:)`): a body replaced later goes out as it is.
    package var shared: SharedBytes?

    package init(status: Int = 200, headers: HTTPHeaders = [:], body: [UInt8] = [], prepared: PreparedBody? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.prepared = prepared
    }

    /// `value` encoded as JSON.
    ///
    /// ```swift
    /// return .response(try .json(todo, status: 201))
    /// ```
    package static func json<T: Encodable>(_ value: T, status: Int = 200, headers: HTTPHeaders = [:]) throws -> Response
    {
        .json(encoded: try JSONCoding.encode(value), status: status, headers: headers)
    }

    /// Already encoded JSON bytes (cached per change, never re-encoded per request).
    package static func json(
        encoded bytes: [UInt8], status: Int = 200, headers: HTTPHeaders = [:], prepared: PreparedBody? = nil
    ) -> Response {
        var headers = headers
        headers["Content-Type"] = jsonContentType
        return Response(status: status, headers: headers, body: bytes, prepared: prepared)
    }

    /// 204 with no body.
    package static let noContent = Response(status: 204)

    /// The contract's error body for `error`.
    package init(error: HTTPError) {
        var headers = error.headers
        headers["Content-Type"] = Self.jsonContentType
        self.init(status: error.status, headers: headers, body: JSONCoding.errorBody(error))
    }
}
