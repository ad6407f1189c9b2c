import Domain
import Reactive
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
}
