import Synchronization

/// The router a service routes with, replaceable while it runs: a data file's save that adds or removes a
/// resource gives the routes of the new set to the requests after it.
///
/// ```swift
/// let slot = RouterSlot(router)
/// slot.replace(with: rebuilt)
/// ```
package final class RouterSlot: Sendable {
    private let current: Mutex<Router>

    /// A slot holding `router`.
    package init(_ router: Router) {
        current = Mutex(router)
    }

    /// The router now.
    package var router: Router { current.withLock { $0 } }

    /// Puts `router` in place for every later request.
    package func replace(with router: Router) {
        current.withLock { $0 = router }
    }
}
