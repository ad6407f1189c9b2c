import Domain
import Reactive

/// One resource of a `DocumentStore`: what a plan reads of it, and how a committed entry reaches it. The store
/// plans, commits and applies every write the same way whatever the resource is: a data file's collection or
/// singular resource (`DocumentResource`), or a resource held in no file, such as a view model's list or an
/// input over its subject, whose `apply` sends the entry into that view model's own input.
///
/// ```swift
/// store.resource(named: "posts")?.document(id)          // what a plan reads
/// store.resource(named: "posts")?.apply(entry)          // a committed entry, in journal order
/// ```
protocol StoreResource: AnyObject, Sendable {
    /// Its name: the `resource` of its entries.
    var name: String { get }
    /// A collection (items with ids) or a singular resource (one object).
    var kind: DocumentResource.Kind { get }
    /// The items now, in order, as a plan reads them.
    var items: DocumentItems { get }
    /// How many items it holds now.
    var count: Int { get }
    /// The item `id` now, or nil.
    func document(_ id: DocumentID) -> StoredDocument?
    /// The singular resource's object now; nil for a collection.
    var singular: StoredDocument? { get }
    /// The bytes it takes in the data file as written (`--max-file-mb` weighs writes against their sum); 0 for
    /// a resource held in no file.
    var fileSize: Int { get }
    /// Sends one committed entry into its input (entries come in journal order, each once).
    func apply(_ entry: DocumentEntry)
    /// Whether the entries other servers committed reach it as the journal's text (`apply(seq:text:)`), which
    /// it parses off the store's write thread, not parsed into `apply(_:)`.
    var takesText: Bool { get }
    /// Sends entry `seq`, committed by another server, into its input as its item's text (nil: deleted), when
    /// `takesText`.
    func apply(seq: Int64, text: String?)
    /// The store took the items as the database holds them at entry `seq` (this server missed entries that
    /// retention deleted): every difference was sent to `apply` before, as a catch-up change.
    func tookCurrent(at seq: Int64)
    /// Its largest integer id and whether every id is a string, when it knows them without making `items`
    /// (nil: the store reads `items` once at start, `DocumentCounters`).
    var knownIDs: (largest: Int64, allStrings: Bool)? { get }
}

extension StoreResource {
    /// Nothing to do: the catch-up changes were the whole of it.
    func tookCurrent(at seq: Int64) {}

    /// Not known: read from `items`.
    var knownIDs: (largest: Int64, allStrings: Bool)? { nil }

    /// Parsed by the store.
    var takesText: Bool { false }

    /// Not called (`takesText` is false).
    func apply(seq: Int64, text: String?) {}
}

extension DocumentResource: StoreResource {
    /// The entry goes into `committed`, which the resource's own pipeline applies.
    func apply(_ entry: DocumentEntry) { committed.send(entry) }
}
