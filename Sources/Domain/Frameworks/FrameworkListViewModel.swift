package import Reactive

/// Seed 001's framework list: the frameworks in `list` and the user's taps in `didSelect`, a passthrough
/// subject (a later subscriber does not get earlier selections).
///
/// ```swift
/// model.didSelect.sink { print($0.name) }.store(in: &bag)
/// try model.select(name: "Combine")    // prints "Combine"
/// ```
package final class FrameworkListViewModel: Sendable {
    /// The frameworks shown; a new subscriber receives them first.
    package let list: CurrentValueSubject<[AppleFramework], Never>
    /// Each framework the user selects.
    package let didSelect = PassthroughSubject<AppleFramework, Never>()

    /// Starts with `frameworks` (the embedded list by default).
    package init(frameworks: [AppleFramework] = EmbeddedData.frameworks) {
        list = CurrentValueSubject(frameworks)
    }

    /// Sends the framework named `name` into `didSelect` and returns it.
    @discardableResult
    package func select(name: String) throws(FrameworkError) -> AppleFramework {
        guard let framework = list.value.first(where: { $0.name == name }) else { throw .unknownName(name) }
        didSelect.send(framework)
        return framework
    }
}
