import Dispatch
import Domain
import Reactive
import ReactiveTesting
import Support
import Testing

@testable import Domain

/// Seed 003's `MovieSearchViewModel`: the search, and `$keyword.debounce(for: .seconds(0.5), scheduler:)` on
/// virtual time.
@Suite struct MovieSearchViewModelTests {
    let scheduler = DispatchQueue.test

    @Test func tenKeywordsWithinHalfASecondCauseOneSearchForTheLast() {
        let model = MovieSearchViewModel(scheduler: scheduler)
        let searches = EventHistory(model.results.compactMap { $0?.expression })
        let typed = ["g", "go", "god", "godf", "godfa", "godfat", "godfath", "godfathe", "godfather", "godfather p"]
        for (index, keyword) in typed.enumerated() {
            if index > 0 { scheduler.advance(by: .milliseconds(40)) }  // all ten inside 0.36 s
            model.keyword = keyword
        }
        #expect(searches.all.isEmpty, "nothing while typing")
        scheduler.advance(by: .milliseconds(499))
        #expect(searches.all.isEmpty, "not before 0.5 s of quiet")
        scheduler.advance(by: .milliseconds(1))
        #expect(searches.all == ["godfather p"])
        #expect(model.results.value?.results.map(\.title) == ["The Godfather Part II", "The Godfather Part III"])
        scheduler.advance(by: .seconds(5))
        #expect(searches.all == ["godfather p"])
    }

    @Test func twoKeywordsSixTenthsApartCauseTwoSearches() {
        let model = MovieSearchViewModel(scheduler: scheduler)
        let searches = EventHistory(model.results.compactMap { $0?.expression })
        model.keyword = "alien"
        scheduler.advance(by: .milliseconds(600))
        model.keyword = "matrix"
        scheduler.advance(by: .milliseconds(600))
        #expect(searches.all == ["alien", "matrix"])
    }

    @Test func theInitialEmptyKeywordIsNotSearched() {
        let model = MovieSearchViewModel(scheduler: scheduler)
        scheduler.advance(by: .seconds(10))
        #expect(model.results.value == nil)
    }

    // MARK: The search

    @Test func searchesTitleAndDescriptionIgnoringCase() {
        let model = MovieSearchViewModel()
        let godfather = model.search("GODFATHER")
        #expect(godfather.results.map(\.title) == ["The Godfather", "The Godfather Part II", "The Godfather Part III"])
        #expect(godfather.expression == "GODFATHER")
        #expect(godfather.searchType == "Movie" && godfather.errorMessage.isEmpty)
        #expect(model.search("darabont").results.map(\.id) == ["tt0111161", "tt0120689"])
        #expect(model.search("leon").results.contains { $0.title == "Léon: The Professional" })
    }

    @Test func aKeywordHoldingControlCharactersIsSearchedNotATrap() {
        // A client can send `?q=her%00%00%00`; Foundation's diacritic-insensitive `range(of:)` trapped on it.
        let model = MovieSearchViewModel()
        #expect(model.search("her\u{0}\u{0}\u{0}").results.isEmpty)
        #expect(model.search("\u{0}").results.isEmpty)
        #expect(model.search("AMELIE\u{7}").results.isEmpty)
        #expect(model.search("AMELIE").results.map(\.title) == ["Amélie"])
    }

    @Test func anEmptyKeywordFindsNothing() {
        let model = MovieSearchViewModel()
        #expect(model.search("").results.isEmpty)
        #expect(model.search("   ").results.isEmpty)
        #expect(model.search("zzzz no such film").results.isEmpty)
    }

    @Test func resultsStayNilUntilAKeywordArrivesThenFollowIt() {
        let model = MovieSearchViewModel()
        let history = EventHistory(model.results.map { $0?.expression })
        model.keyword = "alien"
        model.keyword = "matrix"
        #expect(history.all == [nil, "alien", "matrix"])
        #expect(model.results.value?.results.map(\.title) == ["The Matrix"])
    }

    @Test func aCommittedKeywordIsSearchedAndItsAnswerCarriesTheJournalId() {
        let model = MovieSearchViewModel(scheduler: scheduler, searchesHere: false)
        let debounced = EventHistory(model.debouncedKeyword)
        let versions = EventHistory(
            model.resultVersions.compactMap { version in
                version.value.map { "\(version.seq.map(String.init) ?? "-") \($0.expression)" }
            })
        model.keyword = "alien"
        scheduler.advance(by: .milliseconds(600))
        // Not searched here: the debounced keyword waits for the journal.
        #expect(debounced.all == ["alien"])
        #expect(model.results.value == nil)
        model.committed.send(Committed(seq: 40, change: "alien"))
        #expect(model.results.value?.expression == "alien")
        #expect(versions.all == ["40 alien"])
    }

    @Test func searchedHereTheAnswerCarriesNoJournalId() {
        let model = MovieSearchViewModel(scheduler: scheduler)
        let seqs = EventHistory(model.resultVersions.compactMap { $0.value == nil ? nil : $0.seq ?? -1 })
        model.keyword = "matrix"
        scheduler.advance(by: .milliseconds(600))
        #expect(seqs.all == [-1])
    }
}
