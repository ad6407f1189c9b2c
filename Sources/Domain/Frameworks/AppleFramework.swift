/// One cell of seed 001's framework list: `{"name", "imageName", "urlString", "description"}`.
package struct AppleFramework: Codable, Equatable, Hashable, Sendable {
    /// The framework's name, e.g. `SwiftUI`; unique in the list.
    package var name: String
    /// The asset name of its icon in the original app, e.g. `swiftui`.
    package var imageName: String
    /// Its documentation page on developer.apple.com.
    package var urlString: String
    /// One line saying what it is for.
    package var description: String

    /// Creates a framework value.
    package init(name: String, imageName: String, urlString: String, description: String) {
        self.name = name
        self.imageName = imageName
        self.urlString = urlString
        self.description = description
    }
}
