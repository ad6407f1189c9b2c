import Domain
import Reactive
import Storage
import Support
import Synchronization

/// The film search's keyword as an input of the seeds' store: the view model's debounce runs where the
/// keyword was typed, and what settled is committed (`movies`) for every instance; each committed keyword
/// goes into the view model's own input (`committed`), whose search makes what every instance shows.
final class MovieKeywordInput: Sendable {
    private let movies: MovieSearchViewModel
    private let debounced = Mutex<AnyCancellable?>(nil)

    /// Commits each keyword `movies` settles on into `journal`.
    init(_ movies: MovieSearchViewModel, journal: SeedStore) {
        self.movies = movies
        let subscription = movies.debouncedKeyword.sink { keyword in
            SeedInput.append(.movies, .init(keyword: keyword), to: journal) { result in
                if case .failure(let error) = result { Log.warning("movie keyword not shared: \(error)") }
            }
        }
        debounced.withLock { $0 = subscription }
        journal.deliver(.movies) { seq, payload in Self.apply(seq: seq, payload, to: movies) }
    }

    /// A committed keyword, with its entry's id.
    private static func apply(seq: Int64, _ payload: SeedInput.Payload, to movies: MovieSearchViewModel) {
        movies.committed.send(Committed(seq: seq, change: payload.keyword ?? ""))
    }

    /// Shows the result of the newest keyword up to `lastSeq` (startup, before the events are attached).
    func restore(upTo lastSeq: Int64, from journal: SeedStore) {
        if let (seq, payload) = SeedInput.latest(.movies, upTo: lastSeq, in: journal) {
            Self.apply(seq: seq, payload, to: movies)
        }
    }

    /// Stops committing keywords (shutdown).
    func cancel() {
        debounced.withLock { $0 = nil }
    }
}
