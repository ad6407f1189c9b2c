/// Whether some item of a collection has each field its open live queries read by presence
/// (`LiveQuery.presenceFields`: a parameter ignored while no item has its field), kept up to date from each
/// write's changed items.
///
/// A field is followed while a live query group reads it (`track`/`untrack`, counted). A write can give a
/// field to the collection's first item (seen on the changed items alone) or take it from its last: only
/// when a changed item lost the field are the other items looked at, until one that has it.
///
/// ```swift
/// var presence = LivePresence()
/// presence.track(["flag"], in: mirror, has: DocumentLiveQuery.item(_:has:))   // ["flag"] when an item has it
/// presence.changes(changes, in: mirror, has: ...)                              // ["flag": true] when it came
/// ```
struct LivePresence {
    private struct Field {
        var holders: Int
        var present: Bool
    }

    private var fields: [String: Field] = [:]

    /// Follows `names` for one more holder, their presence read from `mirror` when new; answers which of
    /// them some item has now.
    mutating func track<Item>(
        _ names: [String], in mirror: LiveMirror<Item>, has: (Item, String) -> Bool
    ) -> Set<String> {
        var present = Set<String>()
        for name in names {
            if fields[name] == nil {
                fields[name] = Field(holders: 0, present: mirror.contains { has($0, name) })
            }
            fields[name]?.holders += 1
            if fields[name]?.present == true { present.insert(name) }
        }
        return present
    }

    /// Stops following `names` for one holder.
    mutating func untrack(_ names: [String]) {
        for name in names {
            guard let field = fields[name] else { continue }
            fields[name] = field.holders > 1 ? Field(holders: field.holders - 1, present: field.present) : nil
        }
    }

    /// Which of `names` some item has, as the newest version left them (untracked names: none).
    func present(_ names: [String]) -> Set<String> {
        Set(names.filter { fields[$0]?.present == true })
    }

    /// The fields whose presence `changes` (applied to `mirror` already) changed, with their new presence.
    mutating func changes<Item>(
        _ changes: [LiveItemChange<Item>], in mirror: LiveMirror<Item>, has: (Item, String) -> Bool
    ) -> [String: Bool] {
        guard !fields.isEmpty else { return [:] }
        var changed: [String: Bool] = [:]
        for (name, field) in fields {
            let gained = changes.contains { change in change.after.map { has($0.item, name) } ?? false }
            if !field.present, gained {
                changed[name] = true
            } else if field.present, !gained,
                changes.contains(where: { change in change.before.map { has($0.item, name) } ?? false }),
                !mirror.contains(where: { has($0, name) })
            {
                changed[name] = false
            }
        }
        for (name, present) in changed { fields[name]?.present = present }
        return changed
    }

    /// Reads each followed field's presence from `mirror` again (the collection's items were read anew).
    mutating func reread<Item>(from mirror: LiveMirror<Item>, has: (Item, String) -> Bool) {
        for name in fields.keys { fields[name]?.present = mirror.contains { has($0, name) } }
    }

    /// Forgets every field (nobody follows the collection).
    mutating func removeAll() { fields = [:] }
}
