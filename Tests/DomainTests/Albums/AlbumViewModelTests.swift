import Domain
import Foundation
import Reactive
import Support
import Testing

@testable import Domain

private let png = Data(PlaceholderImage(size: 4, colour: RGBColour(red: 1, green: 2, blue: 3))!.png())
private let gif = Data("GIF89a".utf8) + Data([1, 0, 1, 0])

/// Seed 000's `AlbumViewModel`: the list, lookups by any id, and the image pipeline (compactMap(URL) → download →
/// compactMap(image) → switchToLatest → imageSubject).
@Suite struct AlbumViewModelTests {
    let loader = FakeLoader()

    @Test func latestSelectionWinsAndOlderDownloadsAreCancelled() throws {
        let model = AlbumViewModel(albums: [], loader: loader)
        let images = EventHistory(model.imageSubject.compactMap { $0?.url })
        for url in ["http://a.test/1.png", "http://a.test/2.png", "http://a.test/3.png"] {
            try model.select(url: url)
        }
        #expect(loader.requested == ["http://a.test/1.png", "http://a.test/2.png", "http://a.test/3.png"])
        #expect(loader.cancelled == ["http://a.test/1.png", "http://a.test/2.png"])
        // The older downloads answering late changes nothing.
        loader.respond("http://a.test/3.png", body: png)
        loader.respond("http://a.test/1.png", body: gif)
        loader.respond("http://a.test/2.png", body: gif)
        #expect(images.all == ["http://a.test/3.png"])
        #expect(model.imageSubject.value?.contentType == "image/png")
        #expect(model.imageSubject.value?.data == Array(png))
    }

    @Test func bytesThatAreNotAnImageEmitNothing() throws {
        let model = AlbumViewModel(albums: [], loader: loader)
        let images = EventHistory(model.imageSubject.compactMap { $0?.url })
        try model.select(url: "http://a.test/text")
        loader.respond("http://a.test/text", body: Data("this is not an image".utf8))
        #expect(images.all.isEmpty)
        #expect(model.imageSubject.value == nil)
    }

    @Test func aFailedDownloadEmitsNothingAndTheNextSelectionStillWorks() throws {
        let model = AlbumViewModel(albums: [], loader: loader)
        let images = EventHistory(model.imageSubject.compactMap { $0?.contentType })
        try model.select(url: "http://a.test/down.png")
        loader.fail("http://a.test/down.png", .cannotConnect)
        try model.select(url: "http://a.test/4.gif")
        loader.respond("http://a.test/4.gif", body: gif)
        #expect(images.all == ["image/gif"])
    }

    @Test func relativeURLsGoToTheLoaderAsTheyAre() throws {
        let model = AlbumViewModel(loader: loader)
        let url = try model.select(id: 1)
        #expect(url.hasPrefix("/placeholder/600/"))
        #expect(loader.requested == [url])
    }

    @Test func withAnUpstreamThePhotosStartEmptyAndLoad() {
        let manager = NetworkManager(baseURL: URL(string: "http://upstream.test"), loader: loader)
        let model = AlbumViewModel(networkManager: manager, loader: loader)
        #expect(model.albumSubject.value.isEmpty)
        let photos =
            #"[{"albumId":1,"id":1,"title":"t","url":"http://u.test/1.png","thumbnailUrl":"http://u.test/t.png"}]"#
        loader.respond("http://upstream.test/photos", body: Data(photos.utf8))
        #expect(model.albumSubject.value.map(\.url) == ["http://u.test/1.png"])
    }

    @Test func loadFetchesThePhotosWithoutShowingThemUntilCommitted() throws {
        let manager = NetworkManager(baseURL: URL(string: "http://upstream.test"), loader: loader)
        let model = AlbumViewModel(networkManager: manager, loader: loader, fetchAtStart: false)
        #expect(loader.requested.isEmpty)
        let outcome = Outcome(try #require(model.load()))
        let photos =
            #"[{"albumId":1,"id":1,"title":"t","url":"http://u.test/1.png","thumbnailUrl":"http://u.test/t.png"}]"#
        loader.respond("http://upstream.test/photos", body: Data(photos.utf8))
        let loaded = try #require(try outcome.result?.get())
        #expect(model.albumSubject.value.isEmpty, "shown once committed")
        model.committedAlbums.send(Committed(seq: 4, change: loaded))
        #expect(model.albumSubject.value.map(\.url) == ["http://u.test/1.png"])
        #expect(AlbumViewModel().load() == nil)
    }

    // MARK: The list and lookups

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

    @Test(arguments: [Int.min, Int.min + 1, -1, 0, 5001, Int.max])
    func albumLookupToleratesAnyId(_ id: Int) {
        #expect(AlbumViewModel(albums: EmbeddedData.albums).album(id: id) == nil)
    }

    @Test func albumLookupStillFindsByIndex() {
        #expect(AlbumViewModel(albums: EmbeddedData.albums).album(id: 1)?.id == 1)
    }

    @Test func committedListsAndSettledImagesCarryTheirJournalIds() {
        let model = AlbumViewModel(albums: [])
        let lists = EventHistory(model.albumVersions.map { "\($0.seq.map(String.init) ?? "-") \($0.value.count)" })
        let images = EventHistory(
            model.imageVersions.compactMap { version in
                version.value.map { "\(version.seq.map(String.init) ?? "-") \($0.url)" }
            })
        model.committedAlbums.send(Committed(seq: 3, change: nil))
        #expect(model.albumSubject.value == EmbeddedData.albums)
        let image = AlbumImage(url: "/a.png", contentType: "image/png", data: [1, 2, 3])
        model.settle(url: "/a.png", image: image, failure: nil, seq: 9)
        model.settle(url: "/b.png", image: nil, failure: "gone", seq: 10)  // a failure keeps the image
        #expect(lists.all == ["- 0", "3 \(EmbeddedData.albums.count)"])
        #expect(images.all == ["9 /a.png"])
        #expect(model.imageSubject.value == image)
    }
}
