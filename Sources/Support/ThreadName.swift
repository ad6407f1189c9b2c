import Glibc

/// The name the kernel shows for a thread (`/proc/PID/task/TID/comm`, `top -H`, `strace -f`, a core dump).
///
/// NB: Foundation's `Thread.name` does not reach the kernel on Linux, and Glibc's `pthread_setname_np` is not
/// visible to Swift (a GNU extension), so each thread names itself by writing `/proc/thread-self/comm`, which
/// keeps the first 15 bytes.
///
/// ```swift
/// Thread { ThreadName.setCurrent("livestate-write"); … }.start()
/// ```
package enum ThreadName {
    /// Names the calling thread `name` (its first 15 bytes); best effort (no /proc: the name stays).
    package static func setCurrent(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
