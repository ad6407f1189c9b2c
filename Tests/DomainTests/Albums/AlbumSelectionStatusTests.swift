import Foundation
import Reactive
import Testing

@testable import Domain

private let png = Data(PlaceholderImage(size: 4, colour: RGBColour(red: 1, green: 2, blue: 3))!.png())
private let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg"><script>fetch('/todos')</script></svg>"#.utf8)

/// `AlbumViewModel.selectionStatus`: what became of the latest selection while it is not the current image.
@Suite struct AlbumSelectionStatusTests {
    let loader = FakeLoader()

    @Test func aSelectionIsPendingUntilItsImageArrives() throws {
        let model = AlbumViewModel(albums: [], loader: loader)
        #expect(model.selectionStatus.value == .settled)
        try model.select(url: "http://a.test/1.png")
        #expect(model.selectionStatus.value == .pending(url: "http://a.test/1.png"))
        loader.respond("http://a.test/1.png", body: png)
        #expect(model.selectionStatus.value == .settled)
        #expect(model.imageSubject.value?.url == "http://a.test/1.png")
    }

    @Test func anSVGIsNotAnImageAndTheOlderImageStays() throws {
        let model = AlbumViewModel(albums: [], loader: loader)
        try model.select(url: "http://a.test/1.png")
        loader.respond("http://a.test/1.png", body: png)
        try model.select(url: "http://evil.test/x.svg")
        loader.respond("http://evil.test/x.svg", headers: ["Content-Type": "image/svg+xml"], body: svg)
        #expect(
            model.selectionStatus.value
                == .failed(
                    url: "http://evil.test/x.svg",
                    reason: "not an image (image/svg+xml); only PNG, JPEG, GIF and WebP are shown"))
        #expect(model.imageSubject.value?.url == "http://a.test/1.png")
    }

    @Test(arguments: [
        LoadFailure.cannotConnect, .timedOut,
        LoadFailure(.other, "the certificate of images.test is not trusted (it has expired)"),
    ])
    func aFailedDownloadShowsTheLoadersReason(failure: LoadFailure) throws {
        let model = AlbumViewModel(albums: [], loader: loader)
        try model.select(url: "http://dead.test/1.png")
        loader.fail("http://dead.test/1.png", failure)
        #expect(model.selectionStatus.value == .failed(url: "http://dead.test/1.png", reason: failure.reason))
        #expect(model.imageSubject.value == nil)
    }

    @Test func anErrorStatusIsAFailureEvenWithImageBytes() throws {
        let model = AlbumViewModel(albums: [], loader: loader)
        try model.select(url: "http://a.test/gone.png")
        loader.respond("http://a.test/gone.png", status: 404, body: png)
        #expect(
            model.selectionStatus.value
                == .failed(url: "http://a.test/gone.png", reason: "the image server answered 404 instead of the image"))
        #expect(model.imageSubject.value == nil)
    }

    @Test func aNewerSelectionReplacesAFailure() throws {
        let model = AlbumViewModel(albums: [], loader: loader)
        try model.select(url: "http://dead.test/1.png")
        loader.fail("http://dead.test/1.png", .cannotConnect)
        try model.select(url: "http://a.test/2.png")
        #expect(model.selectionStatus.value == .pending(url: "http://a.test/2.png"))
    }

    @Test(arguments: ["not a url", "ftp://a.test/1.png", "javascript:alert(1)", "http://"])
    func aValueThatIsNotAnImageAddressIsRefusedAtOnce(url: String) {
        let model = AlbumViewModel(albums: [], loader: loader)
        #expect(throws: AlbumError.invalidURL(url)) { try model.select(url: url) }
        #expect(loader.requested.isEmpty)
        #expect(model.selectionStatus.value == .settled)
    }
}
