/// json-server's `_delay=MS` query parameter: that one answer is sent `MS` milliseconds late (on a timer,
/// off the loop), to see a front end's loading state for one call. At most `maxMilliseconds`: a larger or
/// malformed value is a 400, not a connection held for minutes.
package enum RequestDelay {
    /// The longest `_delay`: 10 s.
    package static let maxMilliseconds = 10_000

    /// Takes `_delay` out of `request`'s query (no route sees it) and answers its seconds (0 without one).
    package static func take(from request: inout Request) throws(HTTPError) -> Double {
        let values = request.query.all("_delay")
        guard !values.isEmpty else { return 0 }
        request.query = QueryParameters(request.query.pairs.filter { $0.name != "_delay" })
        guard values.count == 1, let milliseconds = Int(values[0]), milliseconds >= 0,
            milliseconds <= maxMilliseconds
        else {
            throw HTTPError.badRequest(
                "'_delay' must be one whole number of milliseconds from 0 to \(maxMilliseconds), not "
                    + "'\(String(values.joined(separator: ",").prefix(40)))'",
                code: "invalid_query")
        }
        return Double(milliseconds) / 1000
    }
}
