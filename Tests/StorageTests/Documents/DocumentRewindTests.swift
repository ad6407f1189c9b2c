import Domain
import Testing

@testable import Storage

/// Taking a shared database's items back before their newest entries: exactly, or not past an entry that
/// cannot be undone exactly.
struct DocumentRewindTests {
    private let current = [
        DocumentRows(
            name: "posts", kind: .collection, items: [("1", #"{"id":1,"v":2}"#), ("3", #"{"id":3}"#)],
            places: [-2, 12])
    ]

    private func row(_ seq: Int64, _ id: String, _ body: String?, before: String?) -> JournalRow {
        JournalRow(seq: seq, change: JournalChange(collection: "posts", id: id, document: body), before: before)
    }

    @Test func everyKindOfEntryIsUndoneAndTheOrderIsThePlaces() {
        let recent = [
            row(12, "3", #"{"id":3}"#, before: "null"),
            row(11, "2", nil, before: #"[-1,{"id":2}]"#),
            row(10, "1", #"{"id":1,"v":2}"#, before: #"[-2,{"id":1,"v":1}]"#),
        ]
        let rewind = DocumentRewind(current, recent: recent, count: 10)
        #expect(rewind.entries.map(\.seq) == [10, 11, 12])
        #expect(rewind.resources[0].items.map(\.key) == ["1", "2"])
        #expect(rewind.resources[0].items.map(\.body) == [#"{"id":1,"v":1}"#, #"{"id":2}"#])
        #expect(rewind.resources[0].places == [-2, -1])
    }

    @Test func theWalkStopsBeforeAnEntryWithoutItsItemBeforeIt() {
        let recent = [
            row(12, "3", #"{"id":3}"#, before: "null"),
            row(11, "2", nil, before: nil),  // an older server's
            row(10, "1", #"{"id":1,"v":2}"#, before: #"[-2,{"id":1,"v":1}]"#),
        ]
        let rewind = DocumentRewind(current, recent: recent, count: 10)
        #expect(rewind.entries.map(\.seq) == [12])
        #expect(rewind.resources[0].items.map(\.key) == ["1"])
    }

    @Test func theWalkStopsWhereTheItemsDoNotLeadToTheState() {
        // Entry 12 says item 3 is {"id":4}: the items hold another, so nothing is undone.
        let recent = [row(12, "3", #"{"id":4}"#, before: "null")]
        let rewind = DocumentRewind(current, recent: recent, count: 10)
        #expect(rewind.entries.isEmpty)
        #expect(rewind.resources[0].items.map(\.key) == ["1", "3"])
        // An unknown resource, a malformed `before` and a count of 0 stop it too.
        let other = JournalRow(
            seq: 12, change: JournalChange(collection: "users", id: "1", document: nil), before: "null")
        #expect(DocumentRewind(current, recent: [other], count: 10).entries.isEmpty)
        let malformed = row(12, "3", #"{"id":3}"#, before: "[x,{}]")
        #expect(DocumentRewind(current, recent: [malformed], count: 10).entries.isEmpty)
        #expect(DocumentRewind(current, recent: [row(12, "3", #"{"id":3}"#, before: "null")], count: 0).entries.isEmpty)
    }
}
