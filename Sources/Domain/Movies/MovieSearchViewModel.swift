import Foundation
package import Reactive
package import Support
import Synchronization

/// Seed 003's search `ViewModel`: a `@Published var keyword` whose changes, once typing pauses for 0.5 s
/// (`debounce`), run a search over the film catalogue; the latest answer is in `results` (nil until the
/// first search). Ten keywords inside 0.5 s cause one search, for the last of them.
///
/// ```swift
/// model.search("godfather").results.map(\.title)   // ["The Godfather", "The Godfather Part II", …]
/// model.keyword = "alien"                          // results emits the answer for "alien"
/// ```
// NB: @unchecked Sendable: `keyword`'s storage is Reactive's locked subject; every other property is a `let`
// of a Sendable type.
package final class MovieSearchViewModel: @unchecked Sendable {
    /// What the user typed; each new value runs a search whose answer `results` emits.
    @Published package var keyword: String = ""
    /// The answer for the latest keyword; nil before the first one.
    package let results = CurrentValueSubject<MovieSearchResult?, Never>(nil)
    /// Each keyword once typing paused (the debounce's output). Searched here at once unless the model
    /// was made with `searchesHere: false`: then the server journals it, and every instance sends the
    /// committed keyword into `committed`.
    package let debouncedKeyword = PassthroughSubject<String, Never>()
    /// Input: each settled keyword the journal committed, with its journal id, in journal order; the model's
    /// own search runs on it.
    package let committed = PassthroughSubject<Committed<String>, Never>()
    /// Each answer with the journal id of the keyword's entry (nil for a keyword searched here alone); nil
    /// before the first answer. What `/events` forwards.
    package var resultVersions: AnyPublisher<Versioned<MovieSearchResult?, Never>, Never> {
        versioned.eraseToAnyPublisher()
    }

    private let versioned = CurrentValueSubject<Versioned<MovieSearchResult?, Never>, Never>(Versioned(seq: nil, nil))
    private let catalogue: [Movie]
    /// Each film's title and description folded once (`MovieSearchViewModel.folded`), in catalogue order.
    private let foldedCatalogue: [(title: [UInt8], description: [UInt8])]
    private let subscriptions = Mutex<[AnyCancellable]>([])

    /// Searches `catalogue` (the embedded films by default) once typing pauses: the seed's
    /// `$keyword.debounce(for: .seconds(0.5), scheduler:)`, on `scheduler` (the server's event loop; a
    /// `TestScheduler` in tests). With `searchesHere: false` the debounced keywords only go to
    /// `debouncedKeyword`, and `results` changes through `committed` alone.
    package init<S: Scheduler>(
        catalogue: [Movie] = EmbeddedData.movies, scheduler: S, dueTime: Double = 0.5, searchesHere: Bool = true
    ) {
        self.catalogue = catalogue
        foldedCatalogue = catalogue.map { (Self.folded($0.title), Self.folded($0.description)) }
        let debounced =
            $keyword
            // NB: `$keyword` replays "" to a new subscriber; the seed's screen starts with no result.
            .dropFirst()
            .debounce(for: .seconds(dueTime), scheduler: scheduler)
            .sink { [debouncedKeyword] keyword in debouncedKeyword.send(keyword) }
        let searching = committed.sink { [weak self] entry in self?.show(entry.change, seq: entry.seq) }
        var kept = [debounced, searching]
        if searchesHere {
            kept.append(debouncedKeyword.sink { [weak self] keyword in self?.show(keyword, seq: nil) })
        }
        subscriptions.withLock { $0.append(contentsOf: kept) }
    }

    /// Searches for `keyword` and emits the answer in `results` and, with `seq`, in `resultVersions`.
    private func show(_ keyword: String, seq: Int64?) {
        let result = search(keyword)
        results.send(result)
        versioned.send(Versioned(seq: seq, result))
    }

    /// Searches `catalogue` at once for every keyword (an `ImmediateScheduler` makes the debounce a no-op).
    package convenience init(catalogue: [Movie] = EmbeddedData.movies) {
        self.init(catalogue: catalogue, scheduler: ImmediateScheduler.shared)
    }

    /// The films whose title or description contains `text`, ignoring case and diacritics; an empty or
    /// blank `text` finds nothing. Any text is searched, NUL and other control characters included.
    package func search(_ text: String) -> MovieSearchResult {
        let needle = Self.folded(text.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !needle.isEmpty else { return MovieSearchResult(expression: text, results: []) }
        let found = zip(catalogue, foldedCatalogue).filter { _, folded in
            folded.title.firstRange(of: needle) != nil || folded.description.firstRange(of: needle) != nil
        }
        return MovieSearchResult(expression: text, results: found.map(\.0))
    }

    /// The UTF-8 of `text` without case and diacritics: a search for its bytes compares as a case- and
    /// diacritic-insensitive search does.
    // NB: matched as bytes, not with Foundation's `range(of:options:)` or `contains`: swift-corelibs-foundation
    // traps ("String index is out of bounds") on some texts, such as a keyword holding NUL characters, which a
    // client can send as `?q=her%00%00%00`.
    private static func folded(_ text: String) -> [UInt8] {
        Array(text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).utf8)
    }
}
