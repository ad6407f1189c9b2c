import Glibc

/// Why an `AtomicFile` call failed: the system call, the path it was made on and its `errno`.
///
/// ```swift
/// catch { print(error) }  // write /srv/.db.json.livestate-Q2xk1a: No space left on device
/// ```
package struct AtomicFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed (`open`, `write`, `fsync`, `rename`, …) or what was refused (`read`).
    package let operation: String
    /// The path the call was made on.
    package let path: String
    /// The `errno` it left (`ENOSPC`, `EIO`, `EISDIR`, `EFBIG` for a file over the limit, …).
    package let code: Int32

    /// An error of `operation` on `path` with `code`.
    package init(_ operation: String, _ path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// `operation path: reason`, the reason being the C library's text for `code`.
    package var description: String {
        "\(operation) \(path): \(String(cString: strerror(code)))"
    }
}
