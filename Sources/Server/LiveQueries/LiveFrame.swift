import HTTP

/// The two events of a live query, as SSE frames (docs/api.md, "Live queries"):
///
/// ```
/// id: 196608
/// event: result
/// data: {"items":[{"completed":false,"id":1,"title":"Buy Milk"}],"total":1}
///
/// id: 262144
/// event: change
/// data: {"deleted":[1],"inserted":[{"completed":false,"id":4,"title":"Walk"}],"insertedAt":[0],"total":1,"updated":[],"updatedAt":[]}
/// ```
///
/// `insertedAt` and `updatedAt` give each inserted and updated item's index in the new result, so a client
/// places them without knowing the query's order. Keys are sorted, as every JSON answer of the server.
enum LiveFrame {
    /// The first bytes of every stream: a browser waits 2 s before it reconnects.
    static let retry = SharedBytes(SSE.retry)

    /// The `result` event: the whole window and the total.
    static func result(id: UInt64, items: [[UInt8]], total: Int) -> SharedBytes {
        var json: [UInt8] = []
        json.reserveCapacity(items.reduce(32) { $0 + $1.count + 1 })
        json += #"{"items":"#.utf8
        appendArray(items, to: &json)
        json += #","total":\#(total)}"#.utf8
        return SharedBytes(SSE.event(id: id, name: "result", json: json))
    }

    /// The `change` event.
    static func change(id: UInt64, change: LiveResultChange) -> SharedBytes {
        var json: [UInt8] = []
        json += #"{"deleted":"#.utf8
        appendArray(change.deleted.map { Array($0.utf8) }, to: &json)
        json += #","inserted":"#.utf8
        appendArray(change.inserted.map(\.json), to: &json)
        json += #","insertedAt":"#.utf8
        appendArray(change.inserted.map { Array(String($0.index).utf8) }, to: &json)
        json += #","total":\#(change.total),"updated":"#.utf8
        appendArray(change.updated.map(\.json), to: &json)
        json += #","updatedAt":"#.utf8
        appendArray(change.updated.map { Array(String($0.index).utf8) }, to: &json)
        json += "}".utf8
        return SharedBytes(SSE.event(id: id, name: "change", json: json))
    }

    private static func appendArray(_ elements: [[UInt8]], to json: inout [UInt8]) {
        json.append(UInt8(ascii: "["))
        for (position, element) in elements.enumerated() {
            if position > 0 { json.append(UInt8(ascii: ",")) }
            json += element
        }
        json.append(UInt8(ascii: "]"))
    }
}

/// The change between two results of one query: items entering the window (inserted), items staying with
/// a new value (updated), each with its index in the new result, the keys leaving it (deleted, in their old
/// order), and the new total.
struct LiveResultChange: Sendable, Equatable {
    /// An item's JSON and its index in the new result.
    struct Placed: Sendable, Equatable {
        var json: [UInt8]
        var index: Int
    }

    var inserted: [Placed] = []
    var updated: [Placed] = []
    var deleted: [String] = []
    var total: Int

    /// A change of nothing yet, to a result of `total` items.
    init(total: Int) {
        self.total = total
    }

    /// Whether the new result is the old one.
    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// The change from `old` to `new` (`oldKeys` are `old`'s keys), encoding only the inserted and updated
    /// items. Items present in both with the same value are not named, even when their index moved: the
    /// others' relative order never changes, so placing the named ones at their indices rebuilds `new`.
    init<Item: Equatable>(
        from old: LiveResult<Item>, keys oldKeys: [String], to new: LiveResult<Item>, newKeys: [String],
        encode: (Item) -> [UInt8]
    ) {
        total = new.total
        var before: [String: Int] = [:]
        before.reserveCapacity(oldKeys.count)
        for (position, key) in oldKeys.enumerated() { before[key] = position }
        var kept = Set<String>()
        for (index, item) in new.items.enumerated() {
            let key = newKeys[index]
            if let position = before[key] {
                kept.insert(key)
                if old.items[position] != item { updated.append(Placed(json: encode(item), index: index)) }
            } else {
                inserted.append(Placed(json: encode(item), index: index))
            }
        }
        deleted = oldKeys.filter { !kept.contains($0) }
    }
}
