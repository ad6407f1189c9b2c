/// A jsonplaceholder post, as seed 002 decodes it: `{"userId", "id", "title", "body"}`.
package struct Post: Codable, Equatable, Identifiable, Sendable {
    /// The author's id (1...10 in the embedded set).
    package var userId: Int
    /// The post's id (1...100 in the embedded set).
    package var id: Int
    /// One line.
    package var title: String
    /// Several lines separated by `\n`.
    package var body: String

    /// Creates a post value.
    package init(userId: Int, id: Int, title: String, body: String) {
        self.userId = userId
        self.id = id
        self.title = title
        self.body = body
    }
}
