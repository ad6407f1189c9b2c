package import Reactive
package import Support

/// Seed 001's framework list: the frameworks in `list` and the user's taps in `didSelect`, a passthrough
/// subject (a later subscriber does not get earlier selections).
///
/// A selection the server's journal committed comes in through `committed` (a framework's name, with its
/// entry's id); the view model's own pipeline looks the name up and sends the framework into `didSelect`,
/// and, with the entry's id, into `selections`, which `/events` forwards.
///
/// ```swift
/// model.didSelect.sink { print($0.name) }.store(in: &bag)
/// try model.select(name: "Combine")    // prints "Combine"
/// model.committed.send(Committed(seq: 12, change: "SwiftUI"))   // prints "SwiftUI"; `selections` has seq 12
/// ```
package final class FrameworkListViewModel: Sendable {
    /// The frameworks shown; a new subscriber receives them first.
    package let list: CurrentValueSubject<[AppleFramework], Never>
    /// Each framework the user selects.
    package let didSelect = PassthroughSubject<AppleFramework, Never>()
    /// Input: each selection the journal committed, by name, with its journal id, in journal order. A name
    /// the list does not hold selects nothing.
    package let committed = PassthroughSubject<Committed<String>, Never>()
    /// Each selection with the journal id of the entry that made it (nil for `select(name:)`).
    package var selections: AnyPublisher<Versioned<AppleFramework, Never>, Never> { versioned.eraseToAnyPublisher() }

    private let versioned = PassthroughSubject<Versioned<AppleFramework, Never>, Never>()
    private let subscription: AnyCancellable

    /// Starts with `frameworks` (the embedded list by default).
    package init(frameworks: [AppleFramework] = EmbeddedData.frameworks) {
        let list = CurrentValueSubject<[AppleFramework], Never>(frameworks)
        self.list = list
        subscription = committed.compactMap { entry in
            list.value.first { $0.name == entry.change }.map { Versioned(seq: entry.seq, $0) }
        }
        .sink { [didSelect, versioned] selection in
            didSelect.send(selection.value)
            versioned.send(selection)
        }
    }

    /// Sends the framework named `name` into `didSelect` and returns it.
    @discardableResult
    package func select(name: String) throws(FrameworkError) -> AppleFramework {
        guard let framework = list.value.first(where: { $0.name == name }) else { throw .unknownName(name) }
        didSelect.send(framework)
        versioned.send(Versioned(seq: nil, framework))
        return framework
    }
}
