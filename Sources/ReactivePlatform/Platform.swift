#if canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#elseif canImport(Darwin)
    public import Darwin
#endif

// The things Reactive needs from the C library, which neither the standard library nor Synchronization
// offers; kept here so that the Reactive target itself imports no C library. None hands Reactive a
// pointer.

/// A new thread-specific slot, which holds 0 on every thread until `setThreadSpecificValue` sets it.
///
/// ```swift
/// let key = makeThreadSpecificKey()
/// ```
public func makeThreadSpecificKey() -> UInt {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
    return UInt(key)
}

/// This thread's value in the slot `key` (0 until set on this thread).
///
/// ```swift
/// let number = threadSpecificValue(key)
/// ```
// NB: @inlinable, so Reactive's hot path (a subject's send asks once per send) pays no call into this module.
@inlinable
public func threadSpecificValue(_ key: UInt) -> UInt {
    UInt(bitPattern: pthread_getspecific(pthread_key_t(truncatingIfNeeded: key)))
}

/// Sets this thread's value in the slot `key`.
///
/// ```swift
/// setThreadSpecificValue(key, 7)
/// ```
public func setThreadSpecificValue(_ key: UInt, _ value: UInt) {
    pthread_setspecific(pthread_key_t(truncatingIfNeeded: key), UnsafeRawPointer(bitPattern: value))
}

/// Stops in the debugger, if one is attached (raises SIGTRAP; without a debugger the process ends), as
/// Combine's `breakpoint` operator does.
///
/// NB: SIGTRAP is set back to its default action first: on Linux the Swift runtime's backtracer handles
/// it, prints a backtrace and returns, and the process would go on. A debugger stops on the signal
/// whatever its action.
///
/// ```swift
/// if shouldStop { raiseDebuggerTrap() }
/// ```
public func raiseDebuggerTrap() {
    signal(SIGTRAP, SIG_DFL)
    raise(SIGTRAP)
}
