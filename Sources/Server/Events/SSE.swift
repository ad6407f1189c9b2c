/// The byte layout of the `text/event-stream` format (WHATWG HTML, "Server-sent events").
enum SSE {
    /// Tells the browser to wait 2 s before reconnecting; the first bytes of every stream.
    static let retry: [UInt8] = Array("retry: 2000\n\n".utf8)

    /// A comment line that keeps idle connections (and proxies) from timing out.
    static let keepAlive: [UInt8] = Array(": keep-alive\n\n".utf8)

    /// `id: N\nevent: name\ndata: …\n\n`.
    ///
    /// NB: `data` must be one line; JSON from `JSONEncoder` without `.prettyPrinted` is, since it
    /// escapes line breaks inside strings. A stray line break would be split into more `data:` lines.
    static func event(id: UInt64, name: String, data: [UInt8]) -> [UInt8] {
        event(
            id: id, name: name, data: data,
            oneLine: !data.contains(UInt8(ascii: "\n")) && !data.contains(UInt8(ascii: "\r")))
    }

    /// `id: N\nevent: name\ndata: json\n\n` for compact JSON, which is one line by construction (JSON
    /// escapes every control character inside strings and compact output puts no line break between
    /// tokens), so its bytes are copied without being scanned: a list frame costs one copy.
    static func event(id: UInt64, name: String, json: [UInt8]) -> [UInt8] {
        event(id: id, name: name, data: json, oneLine: true)
    }

    /// `event(id:name:json:)` of the compact JSON that `write` appends, about `jsonCount` bytes: written
    /// straight into the frame, with no array of its own first.
    static func event(id: UInt64, name: String, jsonCount: Int, write: (inout [UInt8]) -> Void) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(eventCount(id: id, name: name, jsonCount: jsonCount))
        bytes.append(contentsOf: "id: \(id)\nevent: \(name)\ndata: ".utf8)
        write(&bytes)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }

    /// The size of `event(id:name:json:)` for JSON of `jsonCount` bytes, without making it.
    static func eventCount(id: UInt64, name: String, jsonCount: Int) -> Int {
        "id: \(id)\nevent: \(name)\ndata: ".utf8.count + jsonCount + 2
    }

    private static func event(id: UInt64, name: String, data: [UInt8], oneLine: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + name.utf8.count + 40)
        bytes.append(contentsOf: "id: \(id)\nevent: \(name)\n".utf8)
        if oneLine {
            bytes.append(contentsOf: "data: ".utf8)
            bytes.append(contentsOf: data)
        } else {
            // One `data:` line per line of the value; the client joins them with line breaks.
            for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .enumerated()
            {
                if index > 0 { bytes.append(UInt8(ascii: "\n")) }
                bytes.append(contentsOf: "data: ".utf8)
                bytes.append(contentsOf: line.filter { $0 != UInt8(ascii: "\r") })
            }
        }
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }
}
