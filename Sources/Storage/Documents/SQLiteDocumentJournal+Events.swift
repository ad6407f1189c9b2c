import Synchronization

/// The recent events a clean stop of an older LiveState saved in the journal beside the state they led to
/// (it kept no item before its entries, from which this one makes them again, `DocumentRewind`), so that the
/// first start after the upgrade still resumes a `Last-Event-ID` from before it. They are put back only when
/// that start finds the state exactly as the stop left it (the file's mark, its bytes and no entry after it);
/// either way a start takes them out, so they are served at most once.
///
/// - `livestate_doc_events`: the events (id, topic, the SSE frame and the `?diff=1` frame).
/// - `livestate_doc_events_at`: the entry and the file's hash they lead to.
extension SQLiteDocumentJournal {
    /// One event as the stop saved it.
    package struct SavedEvent: Sendable, Equatable {
        /// The event id.
        package var id: Int64
        /// The topic (the resource).
        package var topic: String
        /// The SSE frame, as sent to a client.
        package var frame: String
        /// The frame a `?diff=1` client gets instead; nil: the same.
        package var diffFrame: String?

        /// The event `id` of `topic`, with its frames.
        package init(id: Int64, topic: String, frame: String, diffFrame: String?) {
            self.id = id
            self.topic = topic
            self.frame = frame
            self.diffFrame = diffFrame
        }
    }

    /// Takes the saved events out (oldest first) with the entry and hash they lead to; nil when none are saved.
    package func takeEvents() throws(JournalError) -> (seq: Int64, hash: String, events: [SavedEvent])? {
        try withConnection {
            connection throws(JournalError) -> (seq: Int64, hash: String, events: [SavedEvent])? in
            let at = try connection.query("SELECT seq, hash FROM livestate_doc_events_at WHERE only_row = 1").first
            let events = try connection.query("SELECT id, topic, frame, diff FROM livestate_doc_events ORDER BY id")
                .compactMap { row -> SavedEvent? in
                    guard let id = row[0].integer, let topic = row[1].text, let frame = row[2].text else { return nil }
                    return SavedEvent(id: id, topic: topic, frame: frame, diffFrame: row[3].text)
                }
            try connection.execute("DELETE FROM livestate_doc_events; DELETE FROM livestate_doc_events_at;")
            guard let at, let seq = at[0].integer, let hash = at[1].text else { return nil }
            return (seq, hash, events)
        }
    }
}
