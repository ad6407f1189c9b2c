import Domain
import Foundation
import Reactive
import Support
import Synchronization
import Testing

@testable import Server

/// `JournaledImages`: the album view model's own pipeline, on a server that shares selections, shows the
/// image entry of its latest selection with the entry's id, and its `switchToLatest` drops an older one.
@Suite struct JournaledImagesTests {
    private let png = Data(PlaceholderImage(size: 8, colour: RGBColour(hex: "3779b1")!)!.png())

    /// What an album view model emitted: each image with its entry's id.
    private final class Shown: Sendable {
        private let values = Mutex<[String]>([])
        private let subscription = Mutex<AnyCancellable?>(nil)

        init(_ model: AlbumViewModel) {
            let subscription = model.imageVersions.sink { [weak self] version in
                guard let self, let image = version.value else { return }
                values.withLock { $0.append("\(version.seq.map(String.init) ?? "-") \(image.url)") }
            }
            self.subscription.withLock { $0 = subscription }
        }

        var all: [String] { values.withLock { $0 } }
    }

    /// An album view model loading through `images`, and what it emits.
    private func model(_ images: JournaledImages) -> (AlbumViewModel, Shown) {
        let model = AlbumViewModel(albums: [], loader: images)
        return (model, Shown(model))
    }

    @Test func theLatestSelectionsImageEntryIsShownWithItsId() {
        let images = JournaledImages()
        let (model, shown) = model(images)
        images.expect(selection: 41)
        model.imageUrlSubject.send("/placeholder/8/3779b1")
        #expect(model.selectionStatus.value == .pending(url: "/placeholder/8/3779b1"))
        #expect(images.isWaiting(for: 41))
        #expect(images.deliver(selection: 41, seq: 42, .success((png, "image/png"))))
        #expect(shown.all == ["42 /placeholder/8/3779b1"])
        #expect(model.selectionStatus.value == .settled)
        #expect(!images.isWaiting(for: 41))
    }

    @Test func aNewerSelectionCancelsTheWaitForAnOlderOnesImage() {
        let images = JournaledImages()
        let (model, shown) = model(images)
        images.expect(selection: 41)
        model.imageUrlSubject.send("/a")
        images.expect(selection: 43)
        model.imageUrlSubject.send("/b")
        // The older image comes late: the view model's switchToLatest no longer waits for it.
        #expect(!images.isWaiting(for: 41))
        #expect(!images.deliver(selection: 41, seq: 44, .success((png, "image/png"))))
        #expect(images.deliver(selection: 43, seq: 45, .success((png, "image/png"))))
        #expect(shown.all == ["45 /b"])
    }

    @Test func aJournaledFailureKeepsItsReasonAndTheImageShownBefore() {
        let images = JournaledImages()
        let (model, shown) = model(images)
        images.expect(selection: 1)
        model.imageUrlSubject.send("/a")
        images.deliver(selection: 1, seq: 2, .success((png, "image/png")))
        images.expect(selection: 3)
        model.imageUrlSubject.send("https://images.test/x.png")
        let reason = "the host could not be reached"
        images.deliver(selection: 3, seq: 4, .failure(LoadFailure(.other, reason)))
        #expect(model.selectionStatus.value == .failed(url: "https://images.test/x.png", reason: reason))
        #expect(shown.all == ["2 /a"])
        #expect(model.imageSubject.value?.url == "/a")
    }

    @Test func bytesThatAreNotAnImageAreRefusedAsTheDownloaderWouldHave() {
        let images = JournaledImages()
        let (model, shown) = model(images)
        images.expect(selection: 1)
        model.imageUrlSubject.send("/a")
        images.deliver(selection: 1, seq: 2, .success((Data("<html>".utf8), "text/html")))
        #expect(shown.all.isEmpty)
        #expect(
            model.selectionStatus.value
                == .failed(url: "/a", reason: AlbumDownloadFailure.notAnImage(contentType: "text/html").reason))
    }

    @Test func aURLSentWithoutItsSelectionWaitsForNothing() {
        let images = JournaledImages()
        let (model, shown) = model(images)
        model.imageUrlSubject.send("/a")
        #expect(!images.isWaiting(for: 0))
        #expect(shown.all.isEmpty)
        #expect(model.selectionStatus.value == .failed(url: "/a", reason: "the selection is not in the journal"))
    }
}
