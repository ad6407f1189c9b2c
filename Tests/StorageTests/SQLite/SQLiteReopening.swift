import Domain
import Foundation

@testable import Storage

/// Opens an SQLite file again after the store that held it was released, waiting up to 10 s while it is
/// still "in use".
///
/// NB: the exclusive `flock` belongs to the open file, and a child forked meanwhile by another test of this
/// process (a test server, `psql`) holds a copy of the descriptor until it execs; under AddressSanitizer that
/// takes long enough for the lock to outlive the released store (stage 88 once refused the reopen). A second
/// server on the file is still refused at once: only these reopenings wait.
func reopening<T>(_ open: () throws -> T) throws -> T {
    let deadline = Date().addingTimeInterval(10)
    while true {
        do {
            return try open()
        } catch let error as JournalError where error.description.contains("is in use") && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
