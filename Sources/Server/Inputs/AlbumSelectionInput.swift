import Domain
import Foundation
import Reactive
import Storage
import Synchronization

/// The album selection and its image as inputs of the seeds' store: a committed selection goes, with its
/// entry's id, into the album view model's own input (`selections`), whose pipeline shows it pending and
/// waits for the image entry of that id; a committed image entry goes into `committedImages`, and the view
/// model's `switchToLatest` shows it if its selection is still the latest. The instance that took a
/// selection downloads it and commits the outcome (`SelectionDownloads`).
final class AlbumSelectionInput: Sendable {
    private let albums: AlbumViewModel
    /// The selections' downloads, one instance each, and their outcomes committed.
    let downloads: SelectionDownloads
    /// The newest selection sent into the album view model (`resumePending`).
    private let shown = Mutex<(seq: Int64, url: String)?>(nil)

    /// Takes the committed selections and images of `journal`.
    init(_ albums: AlbumViewModel, downloads: SelectionDownloads, journal: SeedStore) {
        self.albums = albums
        self.downloads = downloads
        journal.deliver(.selection) { [weak self] seq, payload in self?.applySelection(seq: seq, payload) }
        journal.deliver(.image) { [weak self] seq, payload in self?.applyImage(seq: seq, payload) }
    }

    /// A committed selection, with its entry's id: shown pending, and watched for a downloader that dies.
    func applySelection(seq: Int64, _ payload: SeedInput.Payload) {
        guard let url = payload.url else { return }
        showPending(selection: seq, url: url)
        downloads.applied(selection: seq, url: url)
    }

    /// A committed image (or why there is none), with its entry's id, for the selection it answers.
    func applyImage(seq: Int64, _ payload: SeedInput.Payload) {
        guard let selection = payload.selection else { return }
        let outcome: AlbumImageEntry.Outcome =
            if let bytes = payload.data.flatMap({ Data(base64Encoded: $0) }) {
                .downloaded(bytes, contentType: payload.contentType ?? "application/octet-stream")
            } else {
                .failed(reason: payload.failed ?? "the download failed")
            }
        albums.committedImages.send(Committed(seq: seq, change: AlbumImageEntry(selection: selection, outcome)))
    }

    /// Shows the newest selection and image up to `lastSeq` (the entries after it are replayed or followed):
    /// a restarted server shows what it showed, and a new instance what the others show. Startup, before the
    /// events are attached.
    func restore(upTo lastSeq: Int64, from journal: SeedStore) {
        let image = SeedInput.latest(.image, upTo: lastSeq, in: journal)
        // The newest image is shown (as it was, even when a newer selection is still pending); then that
        // newer selection is recorded as pending.
        if let (seq, payload) = image, let selection = payload.selection, let url = payload.url {
            showPending(selection: selection, url: url)
            applyImage(seq: seq, payload)
        }
        if let (seq, payload) = SeedInput.latest(.selection, upTo: lastSeq, in: journal),
            seq > (image?.payload.selection ?? 0), let url = payload.url
        {
            showPending(selection: seq, url: url)
        }
    }

    /// Once the entries up to the start are applied: the newest selection, when no image entry answered it,
    /// is downloaded again, here or by another instance (`SelectionDownloads.resume`).
    func resumePending() {
        guard let (seq, url) = shown.withLock({ $0 }), albums.awaitsImage(of: seq) else { return }
        downloads.resume(selection: seq, url: url)
    }

    /// Sends the selection `seq` of `url` into the album view model, whose own pipeline shows it pending and
    /// waits for its image entry.
    private func showPending(selection seq: Int64, url: String) {
        shown.withLock { $0 = (seq, url) }
        albums.selections.send(AlbumSelection(url: url, seq: seq))
    }
}
