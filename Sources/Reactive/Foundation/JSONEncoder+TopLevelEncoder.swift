public import Foundation

extension JSONEncoder: TopLevelEncoder {
    /// JSON encoders produce `Data`.
    public typealias Output = Data
}

extension PropertyListEncoder: TopLevelEncoder {
    /// Property list encoders produce `Data`.
    public typealias Output = Data
}
