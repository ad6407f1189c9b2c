internal import ReactivePlatform

/// A number that identifies the calling thread while it runs (never 0), so a subject's conduit can tell a
/// send nested inside its own delivery (delivered at once, as Combine does) from a send on another thread
/// (queued behind the running delivery).
// NB: Synchronization has no thread identity; the C call sits in the ReactivePlatform target, so this module
// imports no C library.
@usableFromInline
func currentThreadID() -> UInt { ReactivePlatform.currentThreadID() }
