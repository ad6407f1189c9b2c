/// A type that defines methods for decoding.
///
/// ```swift
/// data.decode(type: [Post].self, decoder: JSONDecoder())
/// ```
public protocol TopLevelDecoder {
    /// The type this decoder accepts.
    associatedtype Input

    /// Decodes an instance of the indicated type.
    func decode<T: Decodable>(_ type: T.Type, from: Input) throws -> T
}

/// A type that defines methods for encoding.
///
/// ```swift
/// posts.encode(encoder: JSONEncoder())
/// ```
public protocol TopLevelEncoder {
    /// The type this encoder produces.
    associatedtype Output

    /// Encodes an instance of the indicated type.
    func encode<T: Encodable>(_ value: T) throws -> Output
}
