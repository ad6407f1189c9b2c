#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A number that identifies the calling thread while it runs (never 0), so a subject's conduit can tell a
/// send nested inside its own delivery (delivered at once, as Combine does) from a send on another thread
/// (queued behind the running delivery).
// NB: the only use of the C library in the core: the standard library has no thread identity.
@usableFromInline
func currentThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: Int(bitPattern: pthread_self()))
    #else
        UInt(pthread_self())
    #endif
}
