package import Support

extension JSONCoding {
    /// `{"error": code, "message": text}`, keys in that order.
    package static func errorBody(_ error: HTTPError) -> [UInt8] {
        Array("{\"error\":\(quoted(error.code)),\"message\":\(quoted(error.message))}".utf8)
    }
}
