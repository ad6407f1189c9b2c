import Glibc

/// The CPU priority of the calling thread.
///
/// ```swift
/// ThreadPriority.lowerCallingThread()   // nice 19 for this thread alone
/// ```
package enum ThreadPriority {
    /// Gives the calling thread, and no other, the lowest CPU priority (nice 19): it runs when the other
    /// threads leave a core idle. Best effort: false when the system refuses.
    ///
    /// NB: on Linux the nice value is a thread's (`setpriority` with `PRIO_PROCESS` and 0 names the calling
    /// thread); a thread cannot raise it back without privilege, and the threads it starts inherit it, so
    /// it is for a thread kept for that work alone.
    @discardableResult
    package static func lowerCallingThread() -> Bool {
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) == 0
    }
}
