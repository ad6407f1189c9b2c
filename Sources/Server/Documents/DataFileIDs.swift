import Domain
import StrictJSON

/// The ids of a collection's items as a load reads them, to tell one that an earlier item has.
///
/// NB: an id that is an integer, or text that an integer writes back as (`"1"` and `1` are one id), is kept
/// as that integer: a set of `Int64`s costs a fraction of a set of `DocumentID`s, which hashes each id's
/// text (about a tenth of a 100 MB file's load).
struct DataFileIDs {
    private var numbers = Set<Int64>()
    private var texts = Set<String>()

    /// Inserts `id`; false when it was there already.
    mutating func insert(_ id: DocumentID) -> Bool {
        if let number = Self.number(id) { return numbers.insert(number).inserted }
        return texts.insert(id.key).inserted
    }

    /// Whether `id` is there.
    func contains(_ id: DocumentID) -> Bool {
        if let number = Self.number(id) { return numbers.contains(number) }
        return texts.contains(id.key)
    }

    /// The integer whose text is `id`'s, or nil.
    private static func number(_ id: DocumentID) -> Int64? {
        if case .integer(let number) = id.value { return number }
        guard let number = Int64(id.key), String(number) == id.key else { return nil }
        return number
    }
}
