import Foundation
import HTTP
import StrictJSON

/// json-server's options file (`--config FILE`, `-c`; without it, `json-server.json` in the working folder
/// when a data file is served and that file exists, as json-server reads it): one JSON object of the
/// options its command line takes, by their long or short names (`"port": 3004`, `"readOnly": true`,
/// `"static": "./public"`, `"r": "routes.json"`). They count as if given on the command line, after it: a
/// flag wins over the file, and the file over the environment.
///
/// `"middlewares"` stops the start, as its flag does: LiveState runs no JavaScript.
///
/// The file never widens what the server exposes (`withoutWidening`): such a file arrives with any cloned
/// repository, and the server is often started in one.
enum JSONServerConfig {
    /// The most bytes such a file may hold: it is a few hand-written options.
    static let maxBytes = 64 << 10

    /// json-server's flags LiveState does not provide, and what to do instead.
    static let unsupported: [String: String] = [
        "middlewares": "LiveState runs no JavaScript middlewares; leave --middlewares out (see docs/own-data.md)"
    ]

    /// The options of the file at `path` by their canonical names (`name(for:)` turns a key into one, nil
    /// for a key that names no option), each value as its flag would give it.
    static func options(at path: String, name: (String) -> String?, switches: Set<String>) throws(CommandLineError)
        -> [String: String]
    {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandLineError("\(path): cannot be read")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
        guard data.count <= maxBytes else { throw CommandLineError("\(path): over 64 KiB, not an options file") }
        guard case .object(let object)? = try? JSONValue(parsing: DataFileContent.withoutByteOrderMark(Array(data)))
        else {
            throw CommandLineError("\(path): not a JSON object of options, such as {\"port\": 3000}")
        }
        var options: [String: String] = [:]
        for (key, value) in object.members {
            if key == "config" { continue }
            if key == "middlewares" { throw CommandLineError("\(path): \(unsupported["middlewares"] ?? "")") }
            guard let option = name(key) else { throw CommandLineError("\(path): '\(key)' is not an option") }
            switch value {
            case .null: continue
            case .bool(let on):
                guard switches.contains(option) else {
                    throw CommandLineError("\(path): '\(key)' takes a value, not \(on)")
                }
                if on { options[option] = "1" }
            case .string(let text): options[option] = text
            case .integer(let number): options[option] = String(number)
            default: throw CommandLineError("\(path): '\(key)' must be a string, a number or true/false")
            }
        }
        return options
    }

    /// `options` (read from the file at `path`) without those that would expose more than the defaults: a
    /// `host` that is not a loopback address or name, a static folder (`public`) outside the file's own folder,
    /// `allowed-hosts`, and `cors` other than `none`. Each one left out gives one line for the log, naming
    /// the flag that would take it.
    static func withoutWidening(_ options: [String: String], from path: String) -> (
        kept: [String: String], ignored: [String]
    ) {
        var kept = options
        var ignored: [String] = []
        func ignore(_ name: String, _ reason: String) {
            guard let value = kept.removeValue(forKey: name) else { return }
            // json-server's name for the static folder, as the file most likely spells it.
            let shown = name == "public" ? "static" : name
            ignored.append(
                "\(path): '\(shown)': \(value.debugDescription) ignored: \(reason); an options file never widens what"
                    + " the server exposes, give --\(shown) on the command line to mean it")
        }
        if let host = kept["host"], !HostPolicy.isLoopback(host) { ignore("host", "not a loopback address") }
        if let folder = kept["public"], !isInside(folder, folderOf: path) {
            ignore("public", "outside the options file's folder")
        }
        ignore("allowed-hosts", "more names to answer to")
        if let cors = kept["cors"], cors != "none" { ignore("cors", "more origins to answer") }
        return (kept, ignored.sorted())
    }

    /// Whether `path` (relative to the working folder, as the option is read) is the folder of `file` or
    /// inside it, symbolic links resolved on both sides.
    private static func isInside(_ path: String, folderOf file: String) -> Bool {
        func resolved(_ path: String) -> String {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        }
        let folder = resolved(URL(fileURLWithPath: file).deletingLastPathComponent().path)
        let target = resolved(path)
        return target == folder || target.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }
}
