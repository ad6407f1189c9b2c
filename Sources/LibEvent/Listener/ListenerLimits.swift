/// The bounds `evhttp` enforces on every connection of an `HTTPListener`.
package struct ListenerLimits: Sendable, Equatable {
    /// Largest request body accepted (the contract's 1 MiB); larger ones get a 413.
    package var maxBodySize = 1 << 20
    /// Largest request head (request line + headers) accepted.
    package var maxHeadersSize = 64 << 10
    /// Seconds a connection may stay idle (reading a request or between requests), and a stream's write
    /// timeout.
    package var timeout: Double = 60

    package init(maxBodySize: Int = 1 << 20, maxHeadersSize: Int = 64 << 10, timeout: Double = 60) {
        self.maxBodySize = maxBodySize
        self.maxHeadersSize = maxHeadersSize
        self.timeout = timeout
    }
}
