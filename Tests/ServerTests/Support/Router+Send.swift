import TestSupport

@testable import HTTP

extension Router {
    /// Routes one request (JSON when `json` is given) and returns its response, waiting for a `.later` one.
    func send(_ method: HTTPMethod, _ target: String, json: String? = nil, headers: HTTPHeaders = [:]) throws
        -> Response
    {
        var headers = headers
        if json != nil, !headers.contains("Content-Type") { headers["Content-Type"] = "application/json" }
        return try handle(Request(method, target, headers: headers, body: Array((json ?? "").utf8))).immediate()
    }
}
