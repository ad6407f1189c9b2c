/// A journal entry's item before it (`JournalRow.before`), as either engine keeps it, which a restart's rewind
/// (`DocumentRewind`) puts back to undo the entry.
///
/// - `null`: there was none: the entry made the item (a data file puts it at the end of its collection).
/// - `[place,item]`: a shared database's item at its place (`PostgresDocumentJournal.batchFunction`; the seeds'
///   rows take this form too), whether the entry changed or deleted it.
/// - `[item]`: a data file's item the entry changed in its place, or its singular resource's object.
/// - `[after,item]`: a data file's item the entry deleted; `after` is the id text of the item then before it, as
///   a JSON string, or `null` when it was first.
///
/// ```swift
/// ItemBefore(#"[12,{"id":1}]"#)          // .placed(12, #"{"id":1}"#)
/// ItemBefore(#"["4",{"id":5}]"#)         // .deleted(#"{"id":5}"#, after: #""4""#)
/// ```
package enum ItemBefore: Equatable, Sendable {
    /// None: the entry made the item.
    case none
    /// The item (its JSON) at its place in a shared database's order.
    case placed(Int64, String)
    /// The item (its JSON), in the place the entry left it (a data file's).
    case inPlace(String)
    /// The item (its JSON) a data file's entry deleted, and the id text of the item then before it as a JSON
    /// string, quotes and escapes included (nil: it was first).
    case deleted(String, after: String?)

    /// Reads `text`; nil when it is none of the forms.
    package init?(_ text: String) {
        if text == "null" {
            self = .none
            return
        }
        let bytes = Array(text.utf8)
        guard bytes.count > 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
        let inner = bytes[1..<bytes.count - 1]
        guard let head = inner.first else { return nil }
        if head == UInt8(ascii: "{") {
            self = .inPlace(String(decoding: inner, as: UTF8.self))
            return
        }
        // What is before the item: a place (digits), `null` or a JSON string, up to the comma after it.
        let end: Int
        if head == UInt8(ascii: "\"") {
            var at = inner.startIndex + 1
            while at < inner.endIndex, inner[at] != UInt8(ascii: "\"") {
                at += inner[at] == UInt8(ascii: "\\") ? 2 : 1
            }
            end = at + 1
        } else {
            end = inner.firstIndex(of: UInt8(ascii: ",")) ?? inner.endIndex
        }
        guard end < inner.endIndex, inner[end] == UInt8(ascii: ","), end + 1 < inner.endIndex else { return nil }
        let lead = String(decoding: inner[inner.startIndex..<end], as: UTF8.self)
        let item = String(decoding: inner[(end + 1)...], as: UTF8.self)
        if lead == "null" {
            self = .deleted(item, after: nil)
        } else if head == UInt8(ascii: "\"") {
            self = .deleted(item, after: lead)
        } else if let place = Int64(lead) {
            self = .placed(place, item)
        } else {
            return nil
        }
    }
}
