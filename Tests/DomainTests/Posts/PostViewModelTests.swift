import Domain
import Foundation
import Reactive
import Support
import Synchronization
import Testing

@testable import Domain

/// Seed 002's `PostViewModel`: the embedded posts, and with an upstream: starts empty, replaces and emits on
/// success, keeps on failure.
@Suite struct PostViewModelTests {
    let loader = FakeLoader()

    @Test func startsEmptyAndFetchesAtOnce() {
        let model = PostViewModel(networkManager: NetworkManager(baseURL: URL(string: upstreamBase), loader: loader))
        let history = EventHistory(model.posts.map(\.count))
        #expect(loader.requested == ["\(upstreamBase)/posts"])
        loader.respond("\(upstreamBase)/posts", body: upstreamPostsJSON)
        #expect(history.all == [0, 1])
    }

    @Test func refreshReplacesAndEmitsBeforeAnsweringThenKeepsPostsOnFailure() throws {
        let model = PostViewModel(networkManager: NetworkManager(baseURL: URL(string: upstreamBase), loader: loader))
        loader.respond("\(upstreamBase)/posts", body: upstreamPostsJSON)
        let history = EventHistory(model.posts.map { $0.map(\.id) })

        let seenWhenAnswered = Mutex<[Int]?>(nil)
        model.refresh().subscribe(
            Subscribers.Sink(
                receiveCompletion: { _ in },
                receiveValue: { [posts = model.posts] _ in seenWhenAnswered.withLock { $0 = posts.value.map(\.id) } }))
        loader.respond("\(upstreamBase)/posts", body: Data(#"[{"userId":2,"id":8,"title":"u","body":"c"}]"#.utf8))
        #expect(seenWhenAnswered.withLock { $0 } == [8], "emitted before the caller hears of it")

        for answer in [
            { self.loader.respond("\(upstreamBase)/posts", status: 500, body: Data()) },
            { self.loader.respond("\(upstreamBase)/posts", body: Data("nope".utf8)) },
            { self.loader.fail("\(upstreamBase)/posts", .timedOut) },
        ] {
            let outcome = Outcome(model.refresh())
            answer()
            #expect(outcome.result != nil && (try? outcome.result?.get()) == nil)
            #expect(model.posts.value.map(\.id) == [8])
        }
        #expect(history.all == [[7], [8]])
    }

    @Test func loadFetchesThroughTheModelsNetworkManagerAndShowsNothingUntilCommitted() throws {
        let model = PostViewModel(
            networkManager: NetworkManager(baseURL: URL(string: upstreamBase), loader: loader), fetchAtStart: false)
        #expect(model.upstream?.absoluteString == upstreamBase)
        let outcome = Outcome(try #require(model.load()))
        #expect(loader.requested == ["\(upstreamBase)/posts"])
        loader.respond("\(upstreamBase)/posts", body: upstreamPostsJSON)
        let loaded = try #require(try outcome.result?.get())
        #expect(loaded.map(\.id) == [7])
        #expect(model.posts.value.isEmpty, "the server journals the list; it is shown once committed")
        model.committed.send(Committed(seq: 3, change: loaded))
        #expect(model.posts.value.map(\.id) == [7])
        #expect(PostViewModel().load() == nil, "no upstream: nothing to load")
    }

    @Test func withoutAnUpstreamRefreshReloadsTheEmbeddedSet() throws {
        let model = PostViewModel(posts: [])
        let outcome = Outcome(model.refresh())
        #expect(try outcome.result?.get().count == 100)
        #expect(model.posts.value.count == 100)
    }

    // MARK: Without an upstream

    @Test func startsWithTheEmbeddedPostsAndReloadEmitsThemAgain() {
        let model = PostViewModel()
        let history = EventHistory(model.posts)
        #expect(model.reloadEmbedded().count == 100)
        #expect(history.all.map(\.count) == [100, 100])
        #expect(model.post(id: 42)?.userId == 5)
        #expect(model.post(id: 101) == nil)
    }

    @Test func canStartEmptyAsWithAnUpstream() {
        let model = PostViewModel(posts: [])
        #expect(model.posts.value.isEmpty)
    }

    @Test func aCommittedListIsShownWithItsJournalIdAndNilMeansTheEmbeddedSet() {
        let model = PostViewModel(posts: [])
        let versions = EventHistory(model.versions.map { "\($0.seq.map(String.init) ?? "-") \($0.value.count)" })
        let one = Post(userId: 1, id: 1, title: "t", body: "b")
        model.committed.send(Committed(seq: 5, change: [one]))
        #expect(model.posts.value == [one])
        model.committed.send(Committed(seq: 6, change: nil))
        #expect(model.posts.value == EmbeddedData.posts)
        #expect(versions.all == ["- 0", "5 1", "6 \(EmbeddedData.posts.count)"])
    }
}
