import Domain
import Foundation
import HTTP

extension DocumentStore {
    /// The most one item a client writes may take in the data file as written: indented at its depth, each
    /// value on its own line, as json-server writes the file.
    ///
    /// NB: a body's bytes bound its item's compact JSON (1 MiB), not its lines: a 1 MiB item nested 63 levels
    /// deep takes about 70 MB of file, every rewrite of the file then writes them all again, and a few such
    /// items made each tiny write cost a second of CPU and the file lag seconds behind. 16 MiB is 16 times
    /// the body limit, far above any usual item's 1.3 to 3 times.
    static let maxItemFileSize = 16 << 20

    /// Refuses (413) a write one of whose items, `bodies` (compact JSON; nil: deleted), would take more than
    /// `maxItemFileSize` of the file.
    static func checkItemFileSize(_ bodies: [[UInt8]?]) throws(HTTPError) {
        for body in bodies {
            guard let body else { continue }
            let size = DocumentItems.fileSize(ofCompact: body)
            guard size > maxItemFileSize else { continue }
            throw HTTPError(
                413, "payload_too_large",
                "as the data file holds it (indented, each value on a line of its own at its depth), this item would"
                    + " take \(megabytes(size)) MB, past the \(megabytes(maxItemFileSize)) MB one item may take;"
                    + " nothing was changed. Nest it less deeply, or split it")
        }
    }

    /// `bytes` in megabytes, with one decimal, as the refusals and the log say them.
    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
}
