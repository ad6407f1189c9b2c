import LibEvent
import Storage
import Synchronization
import TestSupport
import Testing

/// A new empty database on the test cluster (`TestPostgres`) for one test of a store on PostgreSQL: the
/// cluster's own database holds the seeds' tables of other suites, and one database holds one data set.
enum PostgresTestDatabase {
    /// Makes a database named after `prefix` and answers its URI.
    static func fresh(_ prefix: String) throws -> String {
        let name = "livestate_\(prefix)_\(UInt32.random(in: 0...UInt32.max))"
        let cluster = try TestPostgres.uri()
        let loop = try EventLoop(name: "\(prefix)-test")
        loop.run()
        defer { loop.stop() }
        let created = Mutex<Bool?>(nil)
        loop.execute {
            PostgresConnection.open(cluster, on: loop, timeout: 5) { opened in
                guard case .success(let connection) = opened else { return created.withLock { $0 = false } }
                connection.script("CREATE DATABASE \(name)") { result in
                    created.withLock { $0 = (try? result.get()) != nil }
                    connection.close()
                }
            }
        }
        #expect(eventually(timeout: 10) { created.withLock { $0 } == true })
        let slash = try #require(cluster.lastIndex(of: "/"))
        return String(cluster[..<slash]) + "/" + name
    }
}
