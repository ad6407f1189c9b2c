/// The bounds `evhttp` enforces on every connection of an `HTTPListener`.
package struct ListenerLimits: Sendable, Equatable {
    /// Largest request body accepted (the contract's 1 MiB); larger ones get a 413.
    package var maxBodySize = 1 << 20
    /// Largest request head (request line + headers) accepted.
    package var maxHeadersSize = 64 << 10
    /// Seconds a connection may stay idle (reading a request or between requests), and a stream's write
    /// timeout.
    package var timeout: Double = 60
    /// Seconds a request head may take from its first byte:
    /// evhttp's `timeout` restarts at every byte, so without this a byte a second holds a connection.
    package var headTimeout: Double = 10
    /// Bytes a second a body must at least arrive at: its deadline is `headTimeout` plus its declared
    /// length at this rate, at most `maxBodyTime` (a chunked body, whose length is unknown, gets that).
    package var minBodyRate = 16 << 10
    /// The longest a body may take, whatever its length.
    package var maxBodyTime: Double = 60

    package init(maxBodySize: Int = 1 << 20, maxHeadersSize: Int = 64 << 10, timeout: Double = 60) {
        self.maxBodySize = maxBodySize
        self.maxHeadersSize = maxHeadersSize
        self.timeout = timeout
    }
}
