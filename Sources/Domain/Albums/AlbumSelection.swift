package import Foundation

/// A selected photo URL as the album view model's pipeline receives it (`AlbumViewModel.selections`): with
/// the id of the server journal's entry that committed it, or nil for a selection made here alone.
///
/// The id is what tells two selections of the same URL apart: a retry after a failed download waits for its
/// own image entry, not the older selection's failure.
///
/// ```swift
/// model.selections.send(AlbumSelection(url: "/placeholder/600/3779b1", seq: 41))   // waits for entry 41's image
/// ```
package struct AlbumSelection: Equatable, Sendable {
    /// The selected URL, already checked (`AlbumViewModel.check(url:)`).
    package var url: String
    /// The journal id of the selection's entry; nil: selected here alone, downloaded with the model's loader.
    package var seq: Int64?

    package init(url: String, seq: Int64? = nil) {
        self.url = url
        self.seq = seq
    }
}

/// What a journal's image entry says about a committed selection (`AlbumViewModel.committedImages`): one
/// instance downloaded it and journaled the bytes, or why there are none, for every instance.
package struct AlbumImageEntry: Equatable, Sendable {
    /// The downloaded bytes and the content type the image server gave them, or the failure in its own words.
    package enum Outcome: Equatable, Sendable {
        case downloaded(Data, contentType: String)
        case failed(reason: String)
    }

    /// The journal id of the selection it answers.
    package var selection: Int64
    package var outcome: Outcome

    package init(selection: Int64, _ outcome: Outcome) {
        self.selection = selection
        self.outcome = outcome
    }

    /// The image it brings for `url`, or why there is none, as the downloader's own pipeline would have
    /// judged the bytes (`AlbumImage(url:data:)`).
    package func image(url: String) -> Result<AlbumImage, AlbumDownloadFailure> {
        switch outcome {
        case .downloaded(let data, let contentType):
            AlbumImage(url: url, data: data).map { .success($0) } ?? .failure(.notAnImage(contentType: contentType))
        case .failed(let reason):
            .failure(.transfer(LoadFailure(.other, reason)))
        }
    }
}
