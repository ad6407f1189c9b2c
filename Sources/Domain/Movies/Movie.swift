/// One film of a search result, as seed 003's `Movies`: `{"id", "resultType", "image", "title", "description"}`.
package struct Movie: Codable, Equatable, Hashable, Identifiable, Sendable {
    /// The IMDb id, e.g. `tt0111161`.
    package var id: String
    /// Always `Title` for a film, as imdb-api answers.
    package var resultType: String
    /// A poster URL (a placeholder image in the embedded catalogue).
    package var image: String
    /// The film's title.
    package var title: String
    /// Year and director, e.g. `1994 · Frank Darabont`.
    package var description: String

    /// Creates a film value.
    package init(id: String, resultType: String = "Title", image: String, title: String, description: String) {
        self.id = id
        self.resultType = resultType
        self.image = image
        self.title = title
        self.description = description
    }
}
