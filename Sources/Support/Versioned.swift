/// A value as one change left it: the journal id of the entry that made it, the change itself, and the value
/// after it. The one carrier of a change from the view model that applied it to everything that shows it:
/// the snapshot's bytes and its `?diff=1` change (`EncodedSnapshot`, `ListEncoder`), `/events` (`EventHub`)
/// and the live queries, so none of them has to find the change again by comparing values.
///
/// `seq` is nil for a value no entry made: the value at start, or a change made by this process alone.
/// `change` is nil when the change is the whole value (the value at start, a list loaded again): then a
/// reader that needs a change compares with the value before, as it must.
///
/// ```swift
/// model.versions.sink { version in
///     if case .inserted(let todo, let index) = version.change { print(todo, index, version.value.count) }
/// }
/// ```
package struct Versioned<Value: Sendable, Change: Sendable>: Sendable {
    /// The journal id of the entry that made `value`; nil when no entry made it.
    package var seq: Int64?
    /// What the entry changed, exactly; nil when the change is the whole value.
    package var change: Change?
    /// The value after the change.
    package var value: Value

    /// `value` as the entry `seq` left it, by `change`.
    package init(seq: Int64?, change: Change?, _ value: Value) {
        self.seq = seq
        self.change = change
        self.value = value
    }
}

extension Versioned where Change == Never {
    /// `value` as the entry `seq` made it, for a value whose every change is the whole value (a selection,
    /// a search result).
    package init(seq: Int64?, _ value: Value) {
        self.init(seq: seq, change: nil, value)
    }
}

extension Versioned: Equatable where Value: Equatable, Change: Equatable {}
