internal import ReactivePlatform
import Synchronization

/// A number that identifies the calling thread (never 0), so a subject's conduit can tell a send nested inside
/// its own delivery (delivered at once, as Combine does) from a send on another thread (queued behind the
/// running delivery). Threads are numbered in the order they first ask: 32 bits, where `pthread_self()` takes a
/// word, so a conduit keeps the number beside another field.
// NB: Synchronization has no thread identity; the C calls sit in the ReactivePlatform target, so this module
// imports no C library. Numbers are not reused when a thread ends: two live threads could share one only after
// 2^32 threads were started while the older one still ran.
@usableFromInline
func currentThreadID() -> UInt32 {
    let key = threadNumberKey.load(ordering: .acquiring)
    if key != noKey {
        let number = threadSpecificValue(key)
        if number != 0 { return UInt32(truncatingIfNeeded: number) }
    }
    return numberThisThread()
}

/// The thread-specific slot holding each thread's number, `noKey` until the first thread asks.
private let threadNumberKey = Atomic<UInt>(noKey)
private let noKey = UInt.max
/// The last thread number handed out.
private let lastThreadNumber = Atomic<UInt32>(0)

/// Gives the calling thread its number (once per thread).
@inline(never)
private func numberThisThread() -> UInt32 {
    var key = threadNumberKey.load(ordering: .acquiring)
    if key == noKey {
        let made = makeThreadSpecificKey()
        let (installed, current) = threadNumberKey.compareExchange(
            expected: noKey, desired: made, ordering: .acquiringAndReleasing)
        // A thread that loses the race leaves its slot unused.
        key = installed ? made : current
    }
    var number = lastThreadNumber.wrappingAdd(1, ordering: .relaxed).newValue
    if number == 0 { number = lastThreadNumber.wrappingAdd(1, ordering: .relaxed).newValue }
    setThreadSpecificValue(key, UInt(number))
    return number
}
