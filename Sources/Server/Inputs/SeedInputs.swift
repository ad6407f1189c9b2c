import Domain
import Foundation
import Reactive
import Storage
import Support

/// The seeds' inputs other than todo writes, each registered with the store as the input of its resource
/// (`SeedStore.deliver(_:to:)`): the store sends each committed entry, in journal order, into its view
/// model's own input with the entry's id, which the view model's output carries to its event.
///
/// ```swift
/// let inputs = SeedInputs(models: models, journal: journal, loader: client, workers: workers)
/// // a committed {"name":"Combine"} of `frameworks` now goes into `models.frameworks.committed`
/// ```
struct SeedInputs: Sendable {
    let frameworks: FrameworkListViewModel
    let keyword: MovieKeywordInput
    let selection: AlbumSelectionInput
    let lists: UpstreamLists

    init(
        models: LiveStateModels, journal: SeedStore, loader: any DataLoader, workers: WorkerPool?
    ) {
        let frameworks = models.frameworks
        self.frameworks = frameworks
        journal.deliver(.frameworks) { seq, payload in
            frameworks.committed.send(Committed(seq: seq, change: payload.name ?? ""))
        }
        keyword = MovieKeywordInput(models.movies, journal: journal)
        let downloads = SelectionDownloads(store: journal, albums: models.albums, loader: loader, workers: workers)
        selection = AlbumSelectionInput(models.albums, downloads: downloads, journal: journal)
        lists = UpstreamLists(posts: models.posts, albums: models.albums, journal: journal)
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
