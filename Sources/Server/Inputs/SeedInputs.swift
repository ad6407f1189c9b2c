import Domain
import Foundation
import Reactive
import Storage
import Support

/// Where each committed input entry of the seeds goes: its view model's own input, through the input that
/// owns it (`SeedInput.Topic`), with the entry's id, which the view model's output carries to its event.
/// Entries are applied in journal order, on the thread that applies the journal.
///
/// ```swift
/// let inputs = SeedInputs(models: models, journal: journal, images: images, loader: client, workers: workers)
/// inputs.apply(seq: 42, topic: "frameworks", json: #"{"name":"Combine"}"#)
/// ```
struct SeedInputs: Sendable {
    let frameworks: FrameworkListViewModel
    let keyword: MovieKeywordInput
    let selection: AlbumSelectionInput
    let lists: UpstreamLists

    init(
        models: LiveStateModels, journal: SeedStore, images: JournaledImages, loader: any DataLoader,
        workers: WorkerPool?
    ) {
        frameworks = models.frameworks
        keyword = MovieKeywordInput(models.movies, journal: journal)
        let downloads = SelectionDownloads(store: journal, images: images, loader: loader, workers: workers)
        selection = AlbumSelectionInput(models.albums, images: images, downloads: downloads)
        lists = UpstreamLists(posts: models.posts, albums: models.albums)
    }

    /// Sends the entry `seq` of `topic` holding `json` into its view model's input.
    func apply(seq: Int64, topic name: String, json: String) {
        guard let topic = SeedInput.Topic(rawValue: name), let payload = SeedInput.Payload(json: json) else {
            Log.error("journal entry \(seq) (\(name.prefix(40))) cannot be read; skipped")
            return
        }
        switch topic {
        case .frameworks: frameworks.committed.send(Committed(seq: seq, change: payload.name ?? ""))
        case .movies: keyword.apply(seq: seq, payload)
        case .selection: selection.applySelection(seq: seq, payload)
        case .image: selection.applyImage(seq: seq, payload)
        case .posts: lists.applyPosts(seq: seq, payload)
        case .albums: lists.applyAlbums(seq: seq, payload)
        case .keyword: break
        }
    }

    /// Shows the selection, its image and the keyword's result of the entries up to `lastSeq` (startup,
    /// before the events are attached).
    func restore(upTo lastSeq: Int64, from journal: SeedStore) {
        keyword.restore(upTo: lastSeq, from: journal)
        selection.restore(upTo: lastSeq, from: journal)
    }

    /// Stops committing keywords and cancels downloads (shutdown).
    func cancel() {
        keyword.cancel()
        selection.downloads.cancel()
    }
}
