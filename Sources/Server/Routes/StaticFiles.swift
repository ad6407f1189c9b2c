import Foundation
import HTTP
import Synchronization

/// The files of `--public`, served at `/` with content types and `ETag`; `HTTPService`'s content negotiation
/// answers `304` and gzips text files (each file's gzip form is compressed once and kept with its entry).
///
/// A path that names a dotfile or a `..` segment (plain or percent-encoded), or that resolves (through
/// symlinks) outside the folder, is a 404; directories are never listed (their `index.html` is served).
final class StaticFiles: Sendable {
    /// One file as last read.
    private struct Entry: Sendable {
        var size: Int
        var modified: Double
        var response: Response
        var etag: String
    }

    /// The folder's real path (symlinks resolved), without a trailing slash.
    let root: String
    private let cache = Mutex<[String: Entry]>([:])
    /// Files above this size are read per request instead of cached.
    private let cacheLimit = 8 << 20

    /// Nil when `folder` does not exist or is not a directory.
    init?(folder: String) {
        guard let real = Self.realPath(folder) else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue else {
            return nil
        }
        root = real == "/" ? "" : real
    }

    /// The response for a GET or HEAD of `request.path`.
    func respond(to request: Request) throws -> Reply {
        guard let file = resolve(request.path) else {
            throw HTTPError.notFound("no route or file for \(request.path) (the routes are listed at /openapi.json)")
        }
        return .response(try load(file).response)
    }

    /// The real path of the file `path` names, or nil if it must not be served.
    func resolve(_ path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        for segment in segments {
            // Dotfiles, `.` and `..`; backslashes and NULs never name a file we serve.
            if segment.hasPrefix(".") || segment.contains("\\") || segment.contains("\0") { return nil }
        }
        var candidate = root + "/" + segments.joined(separator: "/")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { candidate += (candidate.hasSuffix("/") ? "" : "/") + "index.html" }
        // NB: resolve symlinks and compare real paths, so a link inside the folder cannot lead out of it.
        guard let real = Self.realPath(candidate), real.hasPrefix(root + "/") else { return nil }
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        let name = real.split(separator: "/").last ?? ""
        return name.hasPrefix(".") ? nil : real
    }

    private func load(_ path: String) throws -> Entry {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? -1
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        if let cached = cache.withLock({ $0[path] }), cached.size == size, cached.modified == modified {
            return cached
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HTTPError.notFound("no file at \(path.dropFirst(root.count))")
        }
        let bytes = [UInt8](data)
        let etag = "\"\(String(Self.fnv1a(bytes), radix: 16))-\(String(bytes.count, radix: 16))\""
        let response = Response(
            status: 200,
            headers: [
                "Content-Type": Self.contentType(of: path), "ETag": etag, "Cache-Control": "no-cache",
                "Content-Security-Policy": ContentSecurityPolicy.page, "X-Content-Type-Options": "nosniff",
            ],
            body: bytes, prepared: PreparedBody(bytes, etag: etag))
        let entry = Entry(size: size, modified: modified, response: response, etag: etag)
        if bytes.count <= cacheLimit { cache.withLock { $0[path] = entry } }
        return entry
    }

    /// The media type for a file name's extension.
    static func contentType(of path: String) -> String {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "json", "map": return "application/json; charset=utf-8"
        case "txt": return "text/plain; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "woff": return "font/woff"
        case "woff2": return "font/woff2"
        case "wasm": return "application/wasm"
        case "webmanifest": return "application/manifest+json"
        default: return "application/octet-stream"
        }
    }

    private static func realPath(_ path: String) -> String? {
        let url = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return url.path
    }

    private static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
