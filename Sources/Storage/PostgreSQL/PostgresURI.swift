import Foundation

/// `--data` values that name a PostgreSQL database rather than an SQLite file.
package enum PostgresURI {
    /// Whether `data` is a libpq connection URI (`postgres://…` or `postgresql://…`).
    package static func matches(_ data: String) -> Bool {
        let lower = data.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// `uri` without its password, for logs (`postgresql://user:secret@host/db` → `postgresql://user:***@host/db`).
    package static func redacted(_ uri: String) -> String {
        guard matches(uri), let scheme = uri.range(of: "://"),
            let at = uri[scheme.upperBound...].firstIndex(of: "@")
        else { return uri }
        let credentials = uri[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return uri }
        return String(uri[..<uri.index(after: colon)]) + "***" + String(uri[at...])
    }
}
