import Domain

/// The `frameworks` topic's value: `{"selected": AppleFramework}`, one per `didSelect`.
struct FrameworkSelectionEvent: Encodable, Sendable {
    /// The framework the user picked.
    var selected: AppleFramework
}
