/// The live queries of one collection on one loop, filed by their equality filter (`LiveIndexTerms`), so
/// that a write finds the queries it can affect without looking at the others.
///
/// A query with `?albumId=3` is filed under `albumId` → `3`; a written item is looked up once per indexed
/// field by its own value of that field (before and after the write). Queries without an equality filter
/// are candidates for every write. Lookups cost one hash per indexed field and changed item version,
/// plus the candidates returned.
///
/// ```swift
/// var index = LiveQueryIndex<Group>()
/// index.insert(group, terms: LiveIndexTerms(field: "completed", values: ["false"]))
/// index.collect(into: &found) { field in value(of: item, field) }   // group, when item's completed is false
/// ```
struct LiveQueryIndex<Member: AnyObject> {
    /// field → value → the members filed there.
    private var byField: [String: [String: [ObjectIdentifier: Member]]] = [:]
    /// Members without terms.
    private var unfiled: [ObjectIdentifier: Member] = [:]

    /// Files `member` under every value of `terms` (or as unfiled when nil).
    mutating func insert(_ member: Member, terms: LiveIndexTerms?) {
        let id = ObjectIdentifier(member)
        guard let terms else {
            unfiled[id] = member
            return
        }
        for value in terms.values { byField[terms.field, default: [:]][value, default: [:]][id] = member }
    }

    /// Takes `member` out (with the terms it was filed under).
    mutating func remove(_ member: Member, terms: LiveIndexTerms?) {
        let id = ObjectIdentifier(member)
        guard let terms else {
            unfiled[id] = nil
            return
        }
        for value in terms.values {
            byField[terms.field]?[value]?[id] = nil
            if byField[terms.field]?[value]?.isEmpty == true { byField[terms.field]?[value] = nil }
        }
        if byField[terms.field]?.isEmpty == true { byField[terms.field] = nil }
    }

    /// Adds to `found` the filed members an item whose field values `value(field)` gives could belong to:
    /// those filed under one of its values (the unfiled ones are candidates for every item: `unfiledMembers`).
    func collect(into found: inout [ObjectIdentifier: Member], value: (String) -> String?) {
        for (field, members) in byField {
            guard let itemValue = value(field), let filed = members[itemValue] else { continue }
            found.merge(filed) { first, _ in first }
        }
    }

    /// The members without terms: candidates for every write.
    var unfiledMembers: [ObjectIdentifier: Member] { unfiled }
}
