import Foundation
import Testing

@testable import Domain

/// The data set served without `--upstream`.
@Suite struct EmbeddedDataTests {
    @Test func hasAHundredPostsByTenUsers() {
        let posts = EmbeddedData.posts
        #expect(posts.map(\.id) == Array(1...100))
        #expect(
            Dictionary(grouping: posts, by: \.userId).mapValues(\.count)
                == Dictionary(
                    uniqueKeysWithValues: (1...10).map { ($0, 10) }))
        #expect(posts.allSatisfy { !$0.title.isEmpty && $0.body.contains("\n") })
    }

    @Test func hasFiveThousandPhotosInAHundredAlbumsPointingAtTheServersPlaceholders() throws {
        let albums = EmbeddedData.albums
        #expect(albums.map(\.id) == Array(1...5000))
        #expect(Set(albums.map(\.albumId)) == Set(1...100))
        #expect(albums.filter { $0.albumId == 3 }.count == 50)
        let pattern = try Regex(#"^/placeholder/(600|150)/[0-9a-f]{6}$"#)
        #expect(albums.allSatisfy { $0.url.wholeMatch(of: pattern) != nil })
        #expect(albums.allSatisfy { $0.thumbnailUrl.wholeMatch(of: pattern) != nil })
        #expect(albums[0].url.hasPrefix("/placeholder/600/"))
        #expect(albums[0].thumbnailUrl == albums[0].url.replacingOccurrences(of: "/600/", with: "/150/"))
    }

    @Test func isTheSameOnEveryRunAndMachine() {
        // Pinned values: a change of generator, seed or vocabulary changes what clients have cached.
        #expect(EmbeddedData.colour(for: 1) == "3779b1")
        #expect(EmbeddedData.albums[0].url == "/placeholder/600/3779b1")
        #expect(EmbeddedData.albums[0].title == "ipsum adipisci voluptas blanditiis exercitationem delectus quod")
        #expect(EmbeddedData.posts[0].title == "quidem non quo eveniet facilis quasi")
        #expect(EmbeddedData.movies.first { $0.title == "Hidden Figures" }?.id == "tt4846340")
    }

    @Test func listsAtLeastTwelveRealFrameworksWithDocumentationPages() {
        let frameworks = EmbeddedData.frameworks
        #expect(frameworks.count >= 12)
        #expect(Set(frameworks.map(\.name)).count == frameworks.count)
        #expect(frameworks.allSatisfy { $0.urlString.hasPrefix("https://developer.apple.com/documentation/") })
        #expect(frameworks.contains { $0.name == "Combine" && $0.urlString.hasSuffix("/combine") })
        #expect(frameworks.allSatisfy { !$0.description.isEmpty })
    }

    @Test func catalogueHoldsAtLeastTwoHundredFilmsWithUniqueIdsAndYears() throws {
        let movies = EmbeddedData.movies
        #expect(movies.count >= 200)
        #expect(Set(movies.map(\.id)).count == movies.count)
        let year = try Regex(#"^(18|19|20)\d\d · .+$"#)
        #expect(movies.allSatisfy { $0.description.wholeMatch(of: year) != nil })
        #expect(movies.allSatisfy { $0.id.wholeMatch(of: /tt\d{7,8}/) != nil })
        #expect(movies.allSatisfy { $0.image.hasPrefix("/placeholder/") && $0.resultType == "Title" })
        #expect(movies.first { $0.id == "tt0111161" }?.description == "1994 · Frank Darabont")
    }

    @Test func encodesWithTheContractsKeys() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let todo = String(decoding: try encoder.encode(Todo(id: 1, title: "Buy Milk")), as: UTF8.self)
        #expect(todo == #"{"completed":false,"id":1,"title":"Buy Milk"}"#)
        let image = String(
            decoding: try encoder.encode(AlbumImage(url: "/u", contentType: "image/png", data: [1, 2, 3])),
            as: UTF8.self)
        #expect(image == #"{"bytes":3,"contentType":"image/png","url":"/u"}"#)
    }
}
