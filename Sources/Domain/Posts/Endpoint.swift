/// The jsonplaceholder resources a `NetworkManager` loads, appended to its base URL (seed 002).
package enum Endpoint: String, Sendable {
    /// `URL/posts`: `[Post]`.
    case posts
    /// `URL/photos`: `[AlbumModel]`.
    case photos
}
