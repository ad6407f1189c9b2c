import Foundation
import Reactive
import Support
import Testing

@testable import Domain

private let png = Data(PlaceholderImage(size: 8, colour: RGBColour(red: 55, green: 121, blue: 177))!.png())

/// `AlbumViewModel` on a server that shares selections through its journal: a committed selection
/// (`selections` with its entry's id) goes through the seed's own pipeline, whose "download" is the image
/// entry naming that id (`committedImages`); its `switchToLatest` drops the answer of a replaced selection.
@Suite struct AlbumViewModelCommittedImageTests {
    /// An album view model with no loader of its own, as the server builds it, and the images it emits with
    /// their entries' ids.
    private func model() -> (AlbumViewModel, EventHistory<String>) {
        let model = AlbumViewModel(albums: [], loader: nil)
        let shown = EventHistory(
            model.imageVersions.compactMap { version in
                version.value.map { "\(version.seq.map(String.init) ?? "-") \($0.url)" }
            })
        return (model, shown)
    }

    private func image(_ model: AlbumViewModel, seq: Int64, of selection: Int64, _ outcome: AlbumImageEntry.Outcome) {
        model.committedImages.send(Committed(seq: seq, change: AlbumImageEntry(selection: selection, outcome)))
    }

    @Test func theLatestSelectionsImageEntryIsShownWithItsId() {
        let (model, shown) = model()
        model.selections.send(AlbumSelection(url: "/placeholder/8/3779b1", seq: 41))
        #expect(model.imageUrlSubject.value == "/placeholder/8/3779b1")
        #expect(model.selectionStatus.value == .pending(url: "/placeholder/8/3779b1"))
        #expect(model.awaitsImage(of: 41))
        image(model, seq: 42, of: 41, .downloaded(png, contentType: "image/png"))
        #expect(shown.all == ["42 /placeholder/8/3779b1"])
        #expect(model.selectionStatus.value == .settled)
        #expect(!model.awaitsImage(of: 41))
    }

    @Test func aNewerSelectionCancelsTheWaitForAnOlderOnesImage() {
        let (model, shown) = model()
        model.selections.send(AlbumSelection(url: "/a", seq: 41))
        model.selections.send(AlbumSelection(url: "/b", seq: 43))
        #expect(!model.awaitsImage(of: 41))
        // The older image comes late: the view model's switchToLatest no longer waits for it.
        image(model, seq: 44, of: 41, .downloaded(png, contentType: "image/png"))
        #expect(shown.all.isEmpty)
        #expect(model.selectionStatus.value == .pending(url: "/b"))
        image(model, seq: 45, of: 43, .downloaded(png, contentType: "image/png"))
        #expect(shown.all == ["45 /b"])
    }

    /// A user selects a URL whose download is slow, and selects it again before its failure is journaled:
    /// the older selection's failure is not the retry's outcome, which still waits for its own image.
    @Test func aRetryOfTheSameURLIsNotSettledByTheOlderSelectionsFailure() {
        let (model, shown) = model()
        let url = "https://images.test/x.png"
        model.selections.send(AlbumSelection(url: url, seq: 10))
        model.selections.send(AlbumSelection(url: url, seq: 11))
        image(model, seq: 12, of: 10, .failed(reason: "the host could not be reached"))
        #expect(model.selectionStatus.value == .pending(url: url))
        #expect(model.awaitsImage(of: 11))
        image(model, seq: 13, of: 11, .downloaded(png, contentType: "image/png"))
        #expect(shown.all == ["13 \(url)"])
        #expect(model.selectionStatus.value == .settled)
    }

    /// After a failure was shown, a retry of the same URL is pending until its own entry, and a repeat of
    /// the older failure's entry does not settle it.
    @Test func aRetryAfterAShownFailureWaitsForItsOwnEntry() {
        let (model, shown) = model()
        let url = "https://images.test/x.png"
        model.selections.send(AlbumSelection(url: url, seq: 10))
        image(model, seq: 11, of: 10, .failed(reason: "the image server answered 503 instead of the image"))
        #expect(
            model.selectionStatus.value
                == .failed(url: url, reason: "the image server answered 503 instead of the image"))
        model.selections.send(AlbumSelection(url: url, seq: 12))
        #expect(model.selectionStatus.value == .pending(url: url))
        image(model, seq: 13, of: 10, .failed(reason: "the image server answered 503 instead of the image"))
        #expect(model.selectionStatus.value == .pending(url: url))
        image(model, seq: 14, of: 12, .downloaded(png, contentType: "image/png"))
        #expect(shown.all == ["14 \(url)"])
    }

    @Test func aJournaledFailureKeepsItsReasonAndTheImageShownBefore() {
        let (model, shown) = model()
        model.selections.send(AlbumSelection(url: "/a", seq: 1))
        image(model, seq: 2, of: 1, .downloaded(png, contentType: "image/png"))
        model.selections.send(AlbumSelection(url: "https://images.test/x.png", seq: 3))
        let reason = "the host could not be reached"
        image(model, seq: 4, of: 3, .failed(reason: reason))
        #expect(model.selectionStatus.value == .failed(url: "https://images.test/x.png", reason: reason))
        #expect(shown.all == ["2 /a"])
        #expect(model.imageSubject.value?.url == "/a")
    }

    @Test func bytesThatAreNotAnImageAreRefusedAsTheDownloaderWouldHave() {
        let (model, shown) = model()
        model.selections.send(AlbumSelection(url: "/a", seq: 1))
        image(model, seq: 2, of: 1, .downloaded(Data("<html>".utf8), contentType: "text/html"))
        #expect(shown.all.isEmpty)
        #expect(
            model.selectionStatus.value
                == .failed(url: "/a", reason: AlbumDownloadFailure.notAnImage(contentType: "text/html").reason))
    }

    @Test func aSelectionMadeHereWithoutALoaderIsRecordedOnly() throws {
        let (model, shown) = model()
        try model.select(url: "/a")
        #expect(model.imageUrlSubject.value == "/a")
        #expect(model.selectionStatus.value == .settled)
        #expect(shown.all.isEmpty)
    }
}
