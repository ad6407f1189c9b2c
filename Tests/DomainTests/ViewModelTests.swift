import Domain
import Reactive
import Testing

/// Seed 002's `PostViewModel`.
@Suite struct PostViewModelTests {
    @Test func startsWithTheEmbeddedPostsAndReloadEmitsThemAgain() {
        let model = PostViewModel()
        let history = EventHistory(model.posts)
        #expect(model.reloadEmbedded().count == 100)
        #expect(history.all.map(\.count) == [100, 100])
        #expect(model.post(id: 42)?.userId == 5)
        #expect(model.post(id: 101) == nil)
    }

    @Test func canStartEmptyAsWithAnUpstream() {
        let model = PostViewModel(posts: [])
        #expect(model.posts.value.isEmpty)
    }
}

/// Seed 000's `AlbumViewModel`.
@Suite struct AlbumViewModelTests {
    @Test func selectingAPhotoSendsItsURLIntoImageUrlSubject() throws {
        let model = AlbumViewModel()
        let urls = EventHistory(model.imageUrlSubject)
        let url = try model.select(id: 2)
        try model.select(url: "/placeholder/150/abcdef")
        #expect(url == EmbeddedData.albums[1].url)
        #expect(urls.all == ["", url, "/placeholder/150/abcdef"])
    }

    @Test func refusesUnknownPhotosAndEmptyURLs() {
        let model = AlbumViewModel()
        let urls = EventHistory(model.imageUrlSubject)
        #expect(throws: AlbumError.unknownPhoto(id: 5001)) { try model.select(id: 5001) }
        #expect(throws: AlbumError.emptyURL) { try model.select(url: "") }
        #expect(urls.all == [""])
    }

    @Test func findsPhotosById() {
        let model = AlbumViewModel()
        #expect(model.album(id: 4999)?.albumId == 100)
        #expect(AlbumViewModel(albums: Array(EmbeddedData.albums.reversed())).album(id: 7)?.id == 7)
        #expect(model.imageSubject.value == nil)
        #expect(model.reloadEmbedded().count == 5000)
    }
}

/// Seed 001's framework list.
@Suite struct FrameworkListViewModelTests {
    @Test func didSelectIsAPassthroughSubject() throws {
        let model = FrameworkListViewModel()
        try model.select(name: "SwiftUI")
        let history = EventHistory(model.didSelect.map(\.name))
        try model.select(name: "Combine")
        #expect(throws: FrameworkError.unknownName("Kombine")) { try model.select(name: "Kombine") }
        #expect(history.all == ["Combine"])
    }
}

/// Seed 003's search view model.
@Suite struct MovieSearchViewModelTests {
    @Test func searchesTitleAndDescriptionIgnoringCase() {
        let model = MovieSearchViewModel()
        let godfather = model.search("GODFATHER")
        #expect(godfather.results.map(\.title) == ["The Godfather", "The Godfather Part II", "The Godfather Part III"])
        #expect(godfather.expression == "GODFATHER")
        #expect(godfather.searchType == "Movie" && godfather.errorMessage.isEmpty)
        #expect(model.search("darabont").results.map(\.id) == ["tt0111161", "tt0120689"])
        #expect(model.search("leon").results.contains { $0.title == "Léon: The Professional" })
    }

    @Test func anEmptyKeywordFindsNothing() {
        let model = MovieSearchViewModel()
        #expect(model.search("").results.isEmpty)
        #expect(model.search("   ").results.isEmpty)
        #expect(model.search("zzzz no such film").results.isEmpty)
    }

    @Test func resultsStayNilUntilAKeywordArrivesThenFollowIt() {
        let model = MovieSearchViewModel()
        let history = EventHistory(model.results.map { $0?.expression })
        model.keyword = "alien"
        model.keyword = "matrix"
        #expect(history.all == [nil, "alien", "matrix"])
        #expect(model.results.value?.results.map(\.title) == ["The Matrix"])
    }
}

/// The container the server builds once.
@Suite struct LiveStateModelsTests {
    @Test func buildsEveryModelOnTheEmbeddedDataAndTheStore() throws {
        let models = try LiveStateModels(store: InMemoryTodoStore(todos: []))
        #expect(models.todos.currentTasks.isEmpty)
        #expect(models.posts.posts.value.count == 100)
        #expect(models.albums.albumSubject.value.count == 5000)
        #expect(models.frameworks.list.value.count >= 12)
        #expect(models.movies.results.value == nil)
    }
}
