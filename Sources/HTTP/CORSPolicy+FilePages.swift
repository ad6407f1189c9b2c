import Support
import Synchronization

extension CORSPolicy {
    private static let filePageNoted = Mutex(false)

    /// Logs, the first time only, that a page opened from a file (`Origin: null`) was refused and how to admit
    /// such pages: otherwise it only sees "Failed to fetch", and nothing tells its user why.
    package static func noteRefusedFilePage() {
        let first = filePageNoted.withLock { noted in
            defer { noted = true }
            return !noted
        }
        if first {
            Log.info(
                "a page opened from a file (Origin: null) was refused; start with --cors null to admit such pages "
                    + "(any local file can then call this server)")
        }
    }
}
