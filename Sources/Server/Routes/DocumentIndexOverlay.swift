import Domain
import HTTP

/// How a text kept for an earlier state of a large collection (`DocumentSearchIndex`, `DocumentFieldIndex`,
/// and the orders of `DocumentSortIndex`) answers for the collection as it is now, while the text for now is
/// made on a worker: after a few writes that changed, added or removed items, the text answers for the items
/// it holds that are still there, and the changed and added items are tested alone. So the first request
/// after a write costs its change rather than waiting for the text of every item to be made again (0.1 to 1 s
/// for 100,000 items in a debug build).
///
/// The earlier items and the items now are lined up in order: an item replaced by a write keeps its place
/// among the others, a new item is added at the end, and a removed item leaves the others in their order
/// (`DocumentItems`).
struct DocumentIndexOverlay {
    /// The most changed, added or removed items an earlier text is used with (each changed or added one is
    /// read per request).
    static let limit = 256

    /// The collection's items now.
    let documents: [StoredDocument]
    /// The places of the items that are not the text's (changed in place, or added), ascending.
    let changed: [Int]
    /// For each of `changed`, the text's place of the item it replaced; nil for an added one.
    let replaced: [Int?]
    /// The text's places of the items removed since, ascending.
    let removed: [Int]
    /// How many items the text holds.
    let keptCount: Int

    /// The overlay of the text of `kept`, the items of the state `keptSeq`, for `items` now; nil when more than
    /// `limit` items were changed, added or removed. From the collection's change log (`DocumentChangeLog`)
    /// when it holds every write since, at the cost of the change; else by lining up the items of both states.
    init?(kept: [StoredDocument], keptSeq: Int64, now items: DocumentItems, limit: Int = Self.limit) {
        switch Self.logged(kept: kept, keptSeq: keptSeq, now: items, limit: limit) {
        case .overlay(let overlay): self = overlay
        case .beyondLimit: return nil
        case .unlogged: self.init(kept: kept, now: items.documents, limit: limit)
        }
    }

    /// The overlay of the text of `kept` (the items it was made of) for `documents`, found by lining up the
    /// items of both states; nil when more than `limit` items were changed, added or removed.
    init?(kept: [StoredDocument], now documents: [StoredDocument], limit: Int = Self.limit) {
        var changed: [Int] = []
        var replaced: [Int?] = []
        var removed: [Int] = []
        var (old, new) = (0, 0)
        // NB: by identity, a loop over the places (a stored item is replaced, never changed, by a write); an
        // item of the text that is not at the next place now was removed, unless the item there has its id.
        while old < kept.count && new < documents.count {
            if kept[old] === documents[new] {
                old += 1
                new += 1
                continue
            }
            if kept[old].id == documents[new].id {
                changed.append(new)
                replaced.append(old)
                new += 1
            } else {
                removed.append(old)
            }
            old += 1
            if changed.count + removed.count > limit { return nil }
        }
        guard changed.count + removed.count + (kept.count - old) + (documents.count - new) <= limit else { return nil }
        removed += old..<kept.count
        changed += new..<documents.count
        replaced += repeatElement(nil, count: documents.count - new)
        self.init(documents: documents, changed: changed, replaced: replaced, removed: removed, keptCount: kept.count)
    }

    private init(documents: [StoredDocument], changed: [Int], replaced: [Int?], removed: [Int], keptCount: Int) {
        self.documents = documents
        self.changed = changed
        self.replaced = replaced
        self.removed = removed
        self.keptCount = keptCount
    }

    enum Logged {
        case overlay(DocumentIndexOverlay)
        case beyondLimit
        /// The log does not hold every write since, or does not fit the kept items.
        case unlogged
    }

    /// The overlay from the slots the writes after `keptSeq` touched, each once: a slot that was there then
    /// (below the slots' count then, so it held an item: an empty slot is never written again) was changed in
    /// place, or removed when it is empty now; one past them was added. An item's place is its slot less the
    /// empty slots below it, then (those empty now but the ones emptied since) and now.
    static func logged(kept: [StoredDocument], keptSeq: Int64, now items: DocumentItems, limit: Int) -> Logged {
        guard let changes = items.log.changes(after: keptSeq) else { return .unlogged }
        if changes.isEmpty { return kept.count == items.count ? .overlay(Self(kept: kept, now: items)) : .unlogged }
        var slots: [Int] = []
        slots.reserveCapacity(changes.count)
        var inserted = 0
        for change in changes {
            slots.append(change.slot)
            if change.kind == .inserted { inserted += 1 }
        }
        slots.sort()
        let slotsThen = items.slotCount - inserted
        // NB: the slots emptied since (ascending): empty now, not then.
        var emptied: [Int] = []
        var (changed, replaced, removed): ([Int], [Int?], [Int]) = ([], [], [])
        var previous = -1
        for slot in slots where slot != previous {
            previous = slot
            guard slot < items.slotCount else { return .unlogged }
            let now = items.slot(slot)
            let holesNow = items.holes(below: slot)
            if slot < slotsThen {
                let placeThen = slot - (holesNow - emptied.count)
                guard placeThen < kept.count else { return .unlogged }
                if let now {
                    guard kept[placeThen].id == now.id else { return .unlogged }
                    changed.append(slot - holesNow)
                    replaced.append(placeThen)
                } else {
                    removed.append(placeThen)
                    emptied.append(slot)
                }
            } else if now != nil {
                changed.append(slot - holesNow)
                replaced.append(nil)
            }
            if changed.count + removed.count > limit { return .beyondLimit }
        }
        let emptyThen = items.holes(below: slotsThen) - emptied.count
        guard kept.count == slotsThen - emptyThen else { return .unlogged }
        return .overlay(
            Self(
                documents: items.documents, changed: changed, replaced: replaced, removed: removed,
                keptCount: kept.count))
    }

    /// The overlay of a state with no change since.
    private init(kept: [StoredDocument], now items: DocumentItems) {
        self.init(documents: items.documents, changed: [], replaced: [], removed: [], keptCount: kept.count)
    }

    /// Whether each item now passes: `passing` (by place among the text's items) for the items the text holds,
    /// `test` of each changed or added item (whose error, a match past its limit, refuses the query).
    func passing(_ passing: [Bool], test: (StoredDocument) throws(HTTPError) -> Bool) throws(HTTPError) -> [Bool] {
        var result: [Bool]
        if removed.isEmpty {
            result = passing
        } else {
            result = []
            result.reserveCapacity(documents.count)
            var start = 0
            for place in removed {
                result.append(contentsOf: passing[start..<place])
                start = place + 1
            }
            result.append(contentsOf: passing[start...])
        }
        result.append(contentsOf: repeatElement(false, count: documents.count - result.count))
        for place in changed { result[place] = try test(documents[place]) }
        return result
    }

    /// The places now of the text's items at `places` (ascending) that are still there unchanged, in order.
    func surviving(_ places: [Int]) -> [Int] {
        let replacedPlaces = replaced.compactMap { $0 }
        var (nextRemoved, nextReplaced) = (0, 0)
        var result: [Int] = []
        result.reserveCapacity(places.count)
        for place in places {
            while nextRemoved < removed.count && removed[nextRemoved] < place { nextRemoved += 1 }
            while nextReplaced < replacedPlaces.count && replacedPlaces[nextReplaced] < place { nextReplaced += 1 }
            if nextRemoved < removed.count && removed[nextRemoved] == place { continue }
            if nextReplaced < replacedPlaces.count && replacedPlaces[nextReplaced] == place { continue }
            result.append(place - nextRemoved)
        }
        return result
    }

    /// The place now of each of the text's places, -1 for a removed item's (a replaced item's is its
    /// replacement's).
    func placesNow() -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(keptCount)
        var nextRemoved = 0
        for place in 0..<keptCount {
            if nextRemoved < removed.count && removed[nextRemoved] == place {
                nextRemoved += 1
                result.append(-1)
            } else {
                result.append(place - nextRemoved)
            }
        }
        return result
    }
}
