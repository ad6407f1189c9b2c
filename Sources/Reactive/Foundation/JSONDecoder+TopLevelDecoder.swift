public import Foundation

extension JSONDecoder: TopLevelDecoder {
    /// JSON decoders read `Data`.
    public typealias Input = Data
}

extension PropertyListDecoder: TopLevelDecoder {
    /// Property list decoders read `Data`.
    public typealias Input = Data
}
