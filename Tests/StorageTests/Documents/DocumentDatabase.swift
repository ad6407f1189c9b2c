import Foundation
import TestSupport
import Testing

@testable import LibEvent
@testable import Storage

/// A database of its own on the test cluster (`TestPostgres`) for a document journal's test (one database
/// holds one data set), and the scripts a test runs on it.
struct DocumentDatabase {
    /// The database's URI.
    let uri: String

    /// A new empty database.
    init() throws {
        let name = "livestate_doc_\(UInt32.random(in: 0...UInt32.max))"
        try Self.run(on: try TestPostgres.uri(), "CREATE DATABASE \(name)")
        let cluster = try TestPostgres.uri()
        let slash = try #require(cluster.lastIndex(of: "/"))
        uri = String(cluster[..<slash]) + "/" + name
    }

    /// Runs the script `sql` on the database and waits for its answer.
    @discardableResult
    func run(_ sql: String) throws -> PostgresRows {
        try Self.run(on: uri, sql)
    }

    /// Loads the `pg_dump` `integration/instances/fixtures/NAME` (a database written by an older LiveState).
    func load(fixture name: String) throws {
        let path = TestPostgres.root + "/integration/instances/fixtures/" + name
        try run(String(decoding: try #require(FileManager.default.contents(atPath: path)), as: UTF8.self))
    }

    /// Runs the script `sql` on `uri` and waits for its answer.
    @discardableResult
    static func run(on uri: String, _ sql: String) throws -> PostgresRows {
        let loop = try EventLoop(name: "pg-doc-test")
        loop.run()
        defer { loop.stop() }
        let done = LockedBox<Result<PostgresRows, PostgresError>?>(nil)
        loop.execute {
            PostgresConnection.open(uri, on: loop, timeout: 5) { opened in
                guard case .success(let connection) = opened else {
                    done.value = .failure(PostgresError(.unreachable, "cannot connect"))
                    return
                }
                connection.script(sql) { result in
                    done.value = result
                    connection.close()
                }
            }
        }
        #expect(eventually(timeout: 10) { done.value != nil })
        return try #require(done.value).get()
    }
}
