import Foundation
import HTTP
import StrictJSON

/// json-server's routes file (`--routes routes.json`): one JSON object whose every member is a rule, a
/// pattern (starting with `/`) and the URL it is rewritten to (`URLRewrites`), read and compiled at start so
/// that a rule that cannot be used stops the start with one line naming it.
///
/// ```json
/// { "/api/*": "/$1", "/posts/:category": "/posts?category=:category" }
/// ```
struct RoutesFile: Sendable {
    /// The file's rules, in its order.
    let rewrites: URLRewrites
    /// The object as the file holds it, which `GET /__rules` answers (as json-server does).
    let rules: [UInt8]

    /// The most bytes a routes file may hold: it is a few hand-written rules.
    static let maxBytes = 1 << 20

    /// Reads and compiles the rules of `path`.
    init(path: String) throws(DataFileError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw DataFileError("\(path) cannot be read") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: Self.maxBytes + 1)) ?? Data()
        guard data.count <= Self.maxBytes else { throw DataFileError("\(path) is over 1 MiB: not a routes file") }
        try self.init(bytes: Array(data), path: path)
    }

    /// The rules of `bytes`, read from `path`.
    init(bytes: [UInt8], path: String) throws(DataFileError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: DataFileContent.withoutByteOrderMark(bytes))
        } catch {
            throw DataFileError("\(path): \(DataFileError(parse: error, empty: bytes.isEmpty).description)")
        }
        guard case .object(let object) = value else {
            throw DataFileError("\(path) must hold a JSON object of routes, such as {\"/api/*\": \"/$1\"}")
        }
        var rules: [(pattern: String, target: String)] = []
        for (pattern, target) in object.members {
            guard pattern.hasPrefix("/") else {
                throw DataFileError("\(path): the route '\(pattern)' must start with '/'")
            }
            guard case .string(let target) = target else {
                throw DataFileError("\(path): the route '\(pattern)' must name a URL, a string")
            }
            rules.append((pattern, target))
        }
        do {
            rewrites = try URLRewrites(rules)
        } catch {
            throw DataFileError("\(path): \(error.description)")
        }
        self.rules = value.compactBytes
    }
}
