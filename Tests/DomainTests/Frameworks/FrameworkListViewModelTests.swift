import Domain
import Reactive
import Support
import Testing

/// Seed 001's framework list.
@Suite struct FrameworkListViewModelTests {
    @Test func didSelectIsAPassthroughSubject() throws {
        let model = FrameworkListViewModel()
        try model.select(name: "SwiftUI")
        let history = EventHistory(model.didSelect.map(\.name))
        try model.select(name: "Combine")
        #expect(throws: FrameworkError.unknownName("Kombine")) { try model.select(name: "Kombine") }
        #expect(history.all == ["Combine"])
    }

    @Test func aCommittedSelectionGoesOutThroughDidSelectAndCarriesItsJournalId() throws {
        let model = FrameworkListViewModel()
        let selected = EventHistory(model.didSelect.map(\.name))
        let versions = EventHistory(model.selections.map { "\($0.seq.map(String.init) ?? "-") \($0.value.name)" })
        model.committed.send(Committed(seq: 12, change: "SwiftUI"))
        model.committed.send(Committed(seq: 13, change: "Kombine"))  // not in the list: selects nothing
        try model.select(name: "Combine")
        #expect(selected.all == ["SwiftUI", "Combine"])
        #expect(versions.all == ["12 SwiftUI", "- Combine"])
    }
}
