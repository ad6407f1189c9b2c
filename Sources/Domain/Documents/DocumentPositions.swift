import StrictJSON

/// A collection's index of ids: each item's id → its slot (`DocumentItems`). Ids compare by their text, so
/// `1` and `"1"` are one id.
///
/// NB: two forms. While every id filed is an integer (or a string that is one's text, `"7"`) above every id
/// filed before, each in the next slot, as a json-server file's ids and a `POST`'s are, the index is those
/// ids in slot order, found by binary search: 8 bytes an item. The first other id turns it into a dictionary
/// from id text to slot, as it always was. The dictionary of the 463,000 posts of a 100 MB data file took
/// 25 MB (its table grows by doubling: a million places of 24 bytes), a quarter of the file's size, which a
/// load's peak memory is weighed against; filing each id there was also most of the load's filing work.
///
/// ```swift
/// var positions = DocumentPositions()
/// positions.insert(DocumentID(.integer(3))!, at: 0)   // nil: filed
/// positions.insert(DocumentID(.string("3"))!, at: 1)  // 0: taken by the item in slot 0, nothing filed
/// positions.slot(of: DocumentID(.integer(3))!)        // 0
/// ```
package struct DocumentPositions: Sendable {
    /// The ascending form: the id of each slot, in order (a removed one's too, listed in `removed`).
    private var ascending: [Int64] = []
    /// The slots whose id was removed, in the ascending form.
    private var removed: Set<Int> = []
    /// The dictionary form: each id's text → its slot; nil while the ascending form serves.
    private var hashed: [String: Int]?

    /// No ids.
    package init() {}

    /// How many ids are filed.
    package var count: Int { hashed?.count ?? ascending.count - removed.count }

    /// How many ids there is room for without growing.
    package var capacity: Int { hashed?.capacity ?? ascending.capacity }

    /// Whether the ids are kept in the ascending form.
    package var isAscending: Bool { hashed == nil }

    /// The slot of the item whose id is `id`, or nil.
    package func slot(of id: DocumentID) -> Int? {
        if let hashed { return hashed[id.key] }
        guard let number = Self.number(id), let slot = place(of: number), !removed.contains(slot) else { return nil }
        return slot
    }

    /// Files `id` at `slot`; when an item has it already, files nothing and gives that item's slot.
    @discardableResult
    package mutating func insert(_ id: DocumentID, at slot: Int) -> Int? {
        if hashed == nil {
            if let number = Self.number(id), slot == ascending.count, ascending.last.map({ $0 < number }) ?? true {
                ascending.append(number)
                return nil
            }
            if let taken = self.slot(of: id) { return taken }
            hash()
        }
        // NB: one lookup for a new id (a load files hundreds of thousands); a taken one keeps its slot.
        if let taken = hashed?.updateValue(slot, forKey: id.key) {
            hashed?[id.key] = taken
            return taken
        }
        return nil
    }

    /// Removes `id`; its slot, or nil when no item has it.
    @discardableResult
    package mutating func remove(_ id: DocumentID) -> Int? {
        if hashed != nil { return hashed?.removeValue(forKey: id.key) }
        guard let slot = slot(of: id) else { return nil }
        removed.insert(slot)
        return slot
    }

    /// Removes every id, keeping the room (the ascending form again).
    package mutating func removeAll() {
        hashed = nil
        removed = []
        ascending.removeAll(keepingCapacity: true)
    }

    /// Makes room for `count` ids in all.
    package mutating func reserveCapacity(_ count: Int) {
        if hashed != nil { hashed?.reserveCapacity(count) } else { ascending.reserveCapacity(count) }
    }

    /// Gives back room made and not taken when it is more than twice what the ids take.
    package mutating func trim() {
        guard capacity > 2 * count else { return }
        if let hashed {
            var trimmed = [String: Int](minimumCapacity: hashed.count)
            for (key, slot) in hashed { trimmed[key] = slot }
            self.hashed = trimmed
        } else {
            var trimmed: [Int64] = []
            trimmed.reserveCapacity(ascending.count)
            trimmed.append(contentsOf: ascending)
            ascending = trimmed
        }
    }

    /// Turns the ascending form into the dictionary.
    private mutating func hash() {
        var filed = [String: Int](minimumCapacity: Swift.max(count + 1, ascending.capacity))
        for (slot, number) in ascending.enumerated() where !removed.contains(slot) { filed[String(number)] = slot }
        hashed = filed
        ascending = []
        removed = []
    }

    /// Where `number` is in the ascending ids, or nil.
    private func place(of number: Int64) -> Int? {
        var low = 0
        var high = ascending.count
        while low < high {
            let middle = (low + high) / 2
            if ascending[middle] < number { low = middle + 1 } else { high = middle }
        }
        return low < ascending.count && ascending[low] == number ? low : nil
    }

    /// The integer `id` is, or whose text it is (`"7"`, not `"07"` or `"+7"`); nil for other text.
    private static func number(_ id: DocumentID) -> Int64? {
        switch id.value {
        case .integer(let number): return number
        case .string(let text):
            guard let number = Int64(text), String(number) == text else { return nil }
            return number
        default: return nil
        }
    }
}
