import Dispatch
import Domain
import Foundation
import HTTP
import Storage
import StrictJSON
import Support
import Synchronization

/// A data file's resets and checkpoints, for a front end's tests (`POST /db/reset`, `/db/checkpoints`).
///
/// A reset or a restore is one plan through the store (`DocumentReset`): one batch, one journal transaction,
/// written back to the file and broadcast as the ordinary changes it makes. A checkpoint saves the state the
/// store holds between two batches (its items, and the journal id of the newest entry they show) in the
/// journal's database (`DocumentCheckpoints`), so it survives restarts and retention.
///
/// The state a reset goes back to is the one the server started with, kept as the items it held then (they
/// are shared with the live items until those change). With several servers on one database, it is the
/// state the file filled the database with, saved there by the server that filled it, so every server
/// resets to the same items.
///
/// The checkpoints' database calls run off the event loops, on the store's commit queue between two batches
/// (`betweenBatches`): on PostgreSQL they share the journal's one connection with the batches.
///
/// ```swift
/// let resets = DocumentResets(store: service.store, checkpoints: service.checkpoints)
/// resets.reset(nil) { response in respond(response) }
/// ```
final class DocumentResets: Sendable {
    private let store: DocumentStore
    private let checkpoints: any DocumentCheckpoints
    /// Every resource as this server started, in the file's order.
    private let start: [(name: String, target: DocumentReset.Target)]

    /// The longest checkpoint name taken.
    static let maxNameLength = 200
    /// `--max-checkpoints`' default.
    static let defaultMaxCheckpoints = 100
    /// The most checkpoints kept: each holds a whole state, so their number bounds the journal's size, not
    /// how often a client saves one. NB: a bound per server; servers saving at the same instant on one
    /// database may pass it by one each.
    private let maxCheckpoints: Int

    /// Keeps the store's state now as the one a reset goes back to; on a shared database, saved there now when
    /// `savesStart` (this server's file filled the database), else by the first reset when no server saved one
    /// (a database filled by an older server).
    ///
    /// NB: only the server that filled the database writes at its start: the others leave the database as
    /// they found it until a client asks.
    init(
        store: DocumentStore, checkpoints: any DocumentCheckpoints, savesStart: Bool = false,
        maxCheckpoints: Int = DocumentResets.defaultMaxCheckpoints
    ) {
        self.store = store
        self.checkpoints = checkpoints
        self.maxCheckpoints = maxCheckpoints
        start = Self.state(of: store.resources)
        guard store.isShared, savesStart else { return }
        store.betweenBatches { [self] in
            do throws(HTTPError) {
                _ = try startTargets()
            } catch {
                Log.warning(
                    "the state a reset goes back to is not saved yet (\(error.message)); the first reset saves it")
            }
        }
    }

    // MARK: Reset

    /// Puts back the resources as the server started (`body` nil), or those `body` names as it holds them.
    func reset(_ body: [UInt8]?, respond: @escaping @Sendable (Response) -> Void) {
        store.betweenBatches { [self] in
            do throws(HTTPError) {
                if let body {
                    put(try Self.targets(body, store: store), respond: respond)
                } else {
                    put(try startTargets(), respond: respond)
                }
            } catch {
                respond(Response(error: error))
            }
        }
    }

    /// Commits the entries that put `targets` back, in one batch, and answers how many there were.
    private func put(
        _ targets: [(name: String, target: DocumentReset.Target)], respond: @escaping @Sendable (Response) -> Void
    ) {
        store.submit(
            { view throws(HTTPError) in
                var entries: [DocumentStore.Planned] = []
                for (name, target) in targets {
                    guard let resource = view.store.byName[name], resource.kind == target.kind else { continue }
                    entries += DocumentReset.entries(for: name, to: target, view: view)
                }
                return .init(entries: entries, response: .json(encoded: Array(#"{"changes":\#(entries.count)}"#.utf8)))
            }, respond: respond)
    }

    /// The state a reset goes back to: this server's start, or on a shared database the one saved there.
    private func startTargets() throws(HTTPError) -> [(name: String, target: DocumentReset.Target)] {
        guard store.isShared else { return start }
        let start = self.start
        let content: String?
        do {
            content = try checkpoints.startState(saving: { String(decoding: Self.encode(start), as: UTF8.self) })
        } catch {
            throw Self.unavailable(error)
        }
        guard let content else { return start }
        return try Self.targets(Array(content.utf8), store: store, saved: true)
    }

    // MARK: Checkpoints

    /// Saves the state between two batches as a checkpoint named `name` and answers it (201).
    func saveCheckpoint(name: String, respond: @escaping @Sendable (Response) -> Void) {
        let taken = Mutex<(seq: Int64, state: [(name: String, target: DocumentReset.Target)])?>(nil)
        store.submit({ view throws(HTTPError) in
            taken.withLock { $0 = (view.store.newestSent, Self.state(of: view.store.resources)) }
            return .init(entries: [], response: .noContent)
        }) { [self] response in
            guard response.status < 300, let taken = taken.withLock({ $0 }) else { return respond(response) }
            store.betweenBatches { [self] in
                let createdAt = Self.timestamp(Date())
                do throws(JournalError) {
                    guard try checkpoints.checkpoints().count < maxCheckpoints else {
                        return respond(Response(error: Self.tooMany(maxCheckpoints)))
                    }
                    let saved = try checkpoints.saveCheckpoint(
                        name: name, seq: taken.seq, createdAt: createdAt,
                        content: String(decoding: Self.encode(taken.state), as: UTF8.self))
                    respond(
                        .json(
                            encoded: Self.json(saved), status: 201,
                            headers: ["Location": "/db/checkpoints/\(saved.id)"]))
                } catch {
                    respond(Response(error: Self.unavailable(error)))
                }
            }
        }
    }

    /// Answers every checkpoint, oldest first.
    func listCheckpoints(respond: @escaping @Sendable (Response) -> Void) {
        store.betweenBatches { [self] in
            do throws(JournalError) {
                let list = try checkpoints.checkpoints()
                var out: [UInt8] = [UInt8(ascii: "[")]
                for (index, checkpoint) in list.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    out += Self.json(checkpoint)
                }
                out.append(UInt8(ascii: "]"))
                respond(.json(encoded: out, headers: ["X-Total-Count": String(list.count)]))
            } catch {
                respond(Response(error: Self.unavailable(error)))
            }
        }
    }

    /// Answers the checkpoint `id` (404 when there is none).
    func showCheckpoint(_ id: Int64?, respond: @escaping @Sendable (Response) -> Void) {
        withCheckpoint(id, respond: respond) { checkpoint, _ in respond(.json(encoded: Self.json(checkpoint))) }
    }

    /// Puts every resource back as the checkpoint `id` saved it, in one batch.
    func restoreCheckpoint(_ id: Int64?, respond: @escaping @Sendable (Response) -> Void) {
        withCheckpoint(id, respond: respond) { [self] _, content in
            do throws(HTTPError) {
                put(try Self.targets(Array(content.utf8), store: store, saved: true), respond: respond)
            } catch {
                respond(Response(error: error))
            }
        }
    }

    /// Drops the checkpoint `id`: `200 {}`, or 404.
    func deleteCheckpoint(_ id: Int64?, respond: @escaping @Sendable (Response) -> Void) {
        store.betweenBatches { [self] in
            do throws(JournalError) {
                guard let id, try checkpoints.deleteCheckpoint(id) else {
                    return respond(Response(error: Self.missing(id)))
                }
                respond(.json(encoded: Array("{}".utf8)))
            } catch {
                respond(Response(error: Self.unavailable(error)))
            }
        }
    }

    private func withCheckpoint(
        _ id: Int64?, respond: @escaping @Sendable (Response) -> Void,
        _ found: @escaping @Sendable (DocumentCheckpoint, String) -> Void
    ) {
        store.betweenBatches { [self] in
            do throws(JournalError) {
                guard let id, let (checkpoint, content) = try checkpoints.checkpoint(id) else {
                    return respond(Response(error: Self.missing(id)))
                }
                found(checkpoint, content)
            } catch {
                respond(Response(error: Self.unavailable(error)))
            }
        }
    }

    // MARK: Helpers

    /// The resources `bytes` holds (a JSON object of resources, as a data file), each as the store serves it:
    /// a name the store does not serve, or of the other kind, is a 400 — or, in a saved state (`saved`),
    /// skipped (a resource removed from the file since).
    private static func targets(
        _ bytes: [UInt8], store: DocumentStore, saved: Bool = false
    ) throws(HTTPError) -> [(name: String, target: DocumentReset.Target)] {
        let content: DataFileContent
        do {
            content = try DataFileContent(bytes: bytes, idField: store.idField)
        } catch {
            throw HTTPError.badRequest(error.description, code: "invalid_reset")
        }
        if !saved, let value = content.values.first(where: { $0.name != "$schema" }) {
            throw HTTPError.badRequest(
                "'\(value.name)' is not a resource of the data file (a resource holds a list of objects or an object)",
                code: "invalid_reset")
        }
        var targets: [(name: String, target: DocumentReset.Target)] = []
        for resource in content.resources {
            let target: DocumentReset.Target =
                resource.kind == .singular
                ? .singular(resource.documents.first?.object ?? JSONObject()) : .collection(resource.documents)
            guard let served = store.byName[resource.name], served.kind == resource.kind else {
                if saved { continue }
                throw HTTPError.badRequest(
                    store.byName[resource.name] == nil
                        ? "'\(resource.name)' is not a resource of the data file"
                        : "'\(resource.name)' is a \(store.byName[resource.name]?.kind.rawValue ?? "") resource: "
                            + (resource.kind == .singular ? "give a list of objects" : "give an object"),
                    code: "invalid_reset")
            }
            targets.append((served.name, target))
        }
        return targets
    }

    /// The items of `resources` now (shared with the live items until those change).
    private static func state(of resources: [DocumentResource]) -> [(name: String, target: DocumentReset.Target)] {
        resources.map { resource in
            let items = resource.items
            let target: DocumentReset.Target =
                resource.kind == .singular
                ? .singular(items.singular?.object ?? JSONObject()) : .collection(items.documents)
            return (resource.name, target)
        }
    }

    /// The resources as one JSON object, as `GET /db` writes them.
    private static func encode(_ state: [(name: String, target: DocumentReset.Target)]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, (name, target)) in state.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(name, into: &out)
            out.append(UInt8(ascii: ":"))
            switch target {
            case .singular(let object): out += object.compactBytes
            case .collection(let documents):
                out.append(UInt8(ascii: "["))
                for (position, document) in documents.enumerated() {
                    if position > 0 { out.append(UInt8(ascii: ",")) }
                    out += document.bytes
                }
                out.append(UInt8(ascii: "]"))
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"id","name","eventId","createdAt"}`.
    private static func json(_ checkpoint: DocumentCheckpoint) -> [UInt8] {
        var object = JSONObject()
        object["id"] = .integer(checkpoint.id)
        object["name"] = .string(checkpoint.name)
        object["eventId"] = .integer(Int64(UInt64(max(0, checkpoint.seq)) * EventIDSource.journalBlock))
        object["createdAt"] = .string(checkpoint.createdAt)
        return object.compactBytes
    }

    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    private static func missing(_ id: Int64?) -> HTTPError {
        HTTPError.notFound("no checkpoint \(id.map(String.init) ?? "with that id")")
    }

    /// The refusal of a checkpoint past `--max-checkpoints`: nothing is saved.
    private static func tooMany(_ limit: Int) -> HTTPError {
        HTTPError(
            507, "too_many_checkpoints",
            "\(limit) checkpoints are kept already (--max-checkpoints); nothing was saved. Drop one with"
                + " DELETE /db/checkpoints/{id}, or start the server with a larger limit")
    }

    /// Storage's answer (`JournalError+HTTPResponseError`), saying the checkpoints were what failed.
    private static func unavailable(_ error: JournalError) -> HTTPError {
        HTTPError(error.explained(by: "the checkpoints could not be read or saved"))
    }
}

extension DocumentReset.Target {
    /// The kind of resource that holds it.
    var kind: DocumentResource.Kind {
        if case .singular = self { .singular } else { .collection }
    }
}
