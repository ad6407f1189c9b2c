#if canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#elseif canImport(Darwin)
    public import Darwin
#endif

// The two things Reactive needs from the C library, which neither the standard library nor Synchronization
// offers; kept here so that the Reactive target itself imports no C library. Both are plain calls, without
// pointers.

/// A number that identifies the calling thread while it runs (never 0): `pthread_self()`.
///
/// ```swift
/// let me = currentThreadID()   // the same value for every call on this thread
/// ```
// NB: @inlinable, so Reactive's hot path (a subject's send asks once per send) pays no call into this module.
@inlinable
public func currentThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: Int(bitPattern: pthread_self()))
    #else
        UInt(pthread_self())
    #endif
}

/// Stops in the debugger, if one is attached (raises SIGTRAP; without a debugger the process ends), as
/// Combine's `breakpoint` operator does.
///
/// ```swift
/// if shouldStop { raiseDebuggerTrap() }
/// ```
public func raiseDebuggerTrap() {
    raise(SIGTRAP)
}
