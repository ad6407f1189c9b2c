/// What a data file's restart may undo (`DocumentRewind`): the entries after the floor, each with the item
/// before it (`livestate_entries.before`, as the store gives it), newest first.
///
/// The floor (`livestate_doc_file.floor`) is the newest entry no restart undoes: the entries of an older server
/// (which kept no item before them), and every entry before a start that found the file edited while no server
/// ran (their items before are of the file as it was, not as it is).
extension SQLiteDocumentJournal {
    /// The newest entry no restart undoes (0: none).
    package func rewindFloor() throws(JournalError) -> Int64 {
        try withConnection { connection throws(JournalError) -> Int64 in
            try connection.query("SELECT floor FROM livestate_doc_file WHERE id = 1").first?.first?.integer ?? 0
        }
    }

    /// Makes `seq` the floor: no restart undoes an entry up to it.
    package func keepFromRewinding(upTo seq: Int64) throws(JournalError) {
        try withConnection { connection throws(JournalError) in
            try connection.query("UPDATE livestate_doc_file SET floor = max(floor, ?) WHERE id = 1", [.integer(seq)])
        }
    }
}
