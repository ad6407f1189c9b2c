import CEvent
import HTTP

/// What the listener makes once from a prepared answer (`Response.shared`: a list snapshot's or a static
/// file's `200`, the same for every `GET` until the next change) and reuses for every send of it: the
/// answer's header lines as one block, and from 64 KiB on the body as a file on disk (`FileBody`, sent with
/// `sendfile`). A smaller body, or one whose file could not be made, goes by reference to the shared bytes
/// (`ByteBox`), so libevent writes head and body in one `writev`.
///
/// evhttp builds a response head field by field: `evhttp_add_header` (three allocations and a check per
/// field), then a `printf` per field into the output, then frees them all, per request. The block holds
/// the fields already written out (`Name: value` lines) and goes to evhttp as the reason phrase of the
/// status line, which evhttp copies and prints as is (`HTTP/1.1 200 %s\r\n`, http.c
/// `evhttp_make_header_response`); evhttp then adds `Date` and `Content-Length` as usual.
///
/// Kept in the `SharedBytes` (`attachment`), so it lives exactly as long as the prepared answer.
final class PreparedWire: Sendable {
    /// The body as a file the kernel sends from, when large enough and a folder for such files is set.
    private let file: FileBody?
    /// The fields the block was made from.
    private let headers: HTTPHeaders
    /// `OK\r\nName: value\r\n…Name: value`, NUL-terminated; nil when a field could not go in a block.
    private let block: [CChar]?
    /// The same block with `Vary: Origin` after the fields: the one field CORS adds to every answer when it
    /// is on (the default), so such answers keep the block.
    private let varyOriginBlock: [CChar]?

    private init(_ response: Response, bodyFiles: String?) {
        file = bodyFiles.flatMap { FileBody.make(response.body, in: $0) }
        headers = response.headers
        block = response.status == 200 ? Self.block("OK", response.headers) : nil
        var varied = response.headers
        varied.add("Vary", "Origin")
        varyOriginBlock = response.status == 200 ? Self.block("OK", varied) : nil
    }

    /// The wire form of `response` when it is a prepared answer (its `shared` bytes are its body).
    /// `bodyFiles`: the folder a large body's file goes in (`FileBody`), or nil for none. The first listener to
    /// send the answer makes its wire form; all listeners of a server are given the same folder.
    static func of(_ response: Response, bodyFiles: String?) -> PreparedWire? {
        guard let shared = response.shared, shared.isStorage(of: response.body) else { return nil }
        return shared.attachment { PreparedWire(response, bodyFiles: bodyFiles) } as? PreparedWire
    }

    /// Whether the body goes from a file (`sendfile`), whose head the listener then holds back until the body
    /// follows (`TCP_CORK`).
    var sendsFile: Bool { file != nil }

    /// Calls `body` with the reason phrase carrying `response`'s header lines, when the block stands for
    /// them (same status, same fields: CORS decorates some answers per request, and those go field by
    /// field); otherwise with nil, and the caller adds the fields itself.
    func withHead<T>(of response: Response, _ body: (UnsafePointer<CChar>?) -> T) -> T {
        guard response.status == 200 else { return body(nil) }
        if let block, response.headers.isSameStorage(as: headers) || response.headers == headers {
            return block.withUnsafeBufferPointer { body($0.baseAddress) }
        }
        if let varyOriginBlock, response.headers.equals(headers, plus: "Vary", "Origin") {
            return varyOriginBlock.withUnsafeBufferPointer { body($0.baseAddress) }
        }
        return body(nil)
    }

    /// Adds the body to `buffer`: from the file, or by reference to the shared bytes.
    func appendBody(of response: Response, to buffer: OpaquePointer?) {
        if let file, file.append(to: buffer) { return }
        if let shared = response.shared {
            ByteBox.append(shared: shared, to: buffer, referenceSize: ByteBox.bodyReferenceSize)
        }
    }

    /// The block for `fields` after the reason phrase `reason`; nil if a name is not a token or a value holds
    /// a byte evhttp would refuse in a field (CR, LF, NUL: `evhttp_add_header`'s own check), which then goes
    /// through `evhttp_add_header` and its refusal as before, or if a field is one evhttp itself reads or
    /// adds to a response (it would not see it in the block).
    private static func block(_ reason: String, _ fields: HTTPHeaders) -> [CChar]? {
        var text = Array(reason.utf8)
        for field in fields {
            guard !evhttpFields.contains(where: field.name.caseInsensitiveEquals), !field.name.isEmpty,
                field.name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }),
                field.value.utf8.allSatisfy({ $0 != 0x0D && $0 != 0x0A && $0 != 0 })
            else { return nil }
            text += Array("\r\n\(field.name): \(field.value)".utf8)
        }
        return text.map { CChar(bitPattern: $0) } + [0]
    }

    /// The fields evhttp looks for in a response's own list (http.c: the length, date and connection it adds or
    /// acts on, the transfer coding of a chunked reply).
    private static let evhttpFields = ["Content-Length", "Date", "Connection", "Transfer-Encoding"]
}
