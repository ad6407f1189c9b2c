import Glibc

/// The signals that stop the server (SIGINT, SIGTERM), held pending in every thread so that only the
/// dispatch signal source that waits for them takes them.
///
/// On Linux that source reads a `signalfd` and blocks the signal in dispatch's own thread alone. A thread
/// that does not block it (an event loop's, the log's) may be the one the kernel hands the signal to, and with
/// the disposition `SIG_IGN` the signal is then dropped: the server never hears it. Blocked in the main thread
/// before any other thread starts, every thread inherits the mask, and the signal waits for the `signalfd`.
///
/// ```swift
/// ShutdownSignals.blockInEveryThread()       // first thing, before any thread is started
/// signal(SIGTERM, SIG_IGN)
/// let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
/// ```
package enum ShutdownSignals {
    /// The signals, by number.
    package static let numbers = [SIGINT, SIGTERM]

    /// Blocks `numbers` in the calling thread and so in every thread it starts from now on.
    package static func blockInEveryThread() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}
