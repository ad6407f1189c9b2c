/// A view model's output with the journal id of the committed entry that made it: what `/events` forwards,
/// so an event's id travels with its value from the view model instead of being set beside the emission.
///
/// `seq` is nil for a value no entry made: the value at start, or a change made by this process alone.
package struct Versioned<Value: Sendable>: Sendable {
    /// The journal id of the entry that made `value`; nil when no entry made it.
    package var seq: Int64?
    /// The value.
    package var value: Value

    /// `value` as the entry `seq` made it.
    package init(seq: Int64?, _ value: Value) {
        self.seq = seq
        self.value = value
    }
}
