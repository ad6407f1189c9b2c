import Synchronization

/// The URL rewrites a service applies to every request (`URLRewrites`), replaceable while it runs: a
/// routes file edited while the server runs takes effect for the next request.
///
/// ```swift
/// let rules = RewriteRules(try URLRewrites([("/api/*", "/$1")]))
/// rules.replace(with: try URLRewrites([("/v2/*", "/$1")]))
/// ```
package final class RewriteRules: Sendable {
    private let current: Mutex<URLRewrites>

    /// Rules that start as `rewrites`.
    package init(_ rewrites: URLRewrites) {
        current = Mutex(rewrites)
    }

    /// The rules now.
    package var rewrites: URLRewrites { current.withLock { $0 } }

    /// Puts `rewrites` in place of the rules for every later request.
    package func replace(with rewrites: URLRewrites) {
        current.withLock { $0 = rewrites }
    }

    /// `request` rewritten by the rules now (see `URLRewrites.apply(to:)`).
    package func apply(to request: Request) throws(HTTPError) -> Request {
        try rewrites.apply(to: request)
    }
}
