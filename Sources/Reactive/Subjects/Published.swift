import Synchronization

/// A type that publishes a property marked with an attribute; subscribers receive the new value in the
/// property's `willSet`, so reading the property inside a sink still gives the old value.
///
/// ```swift
/// final class SearchModel { @Published var keyword = "" }
/// model.$keyword.sink { print($0) }   // "" at once, then each new keyword
/// ```
@propertyWrapper
public struct Published<Value> {
    private let box: PublishedSubject<Value>

    /// Creates the published instance with an initial wrapped value.
    public init(wrappedValue: Value) { box = PublishedSubject(wrappedValue) }

    /// Creates the published instance with an initial value.
    public init(initialValue: Value) { self.init(wrappedValue: initialValue) }

    /// Only usable inside classes, through the enclosing-instance subscript.
    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { fatalError() }
        // swiftlint:disable:next unused_setter_value
        set { fatalError() }
    }

    /// The property for which this instance exposes a publisher.
    public var projectedValue: Publisher {
        get { Publisher(box: box) }
        // NB: `assign(to: &$x)` writes a publisher back; the storage it refers to stays the same.
        set {}
    }

    /// Reads and writes the wrapped property of a class instance, emitting the new value before storing it.
    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { object[keyPath: storageKeyPath].box.value }
        set {
            let box = object[keyPath: storageKeyPath].box
            box.objectWillChange?.send()
            box.willSet(newValue)
        }
    }

    /// A publisher for properties marked with the `@Published` attribute.
    public struct Publisher: Reactive.Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Value
        /// This publisher never fails.
        public typealias Failure = Never

        let box: PublishedSubject<Value>

        /// Attaches the subscriber: it receives the current value first, then every new value.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            // NB: the subscription holds and mirrors the property's storage, named as Combine's (PublishedSubject).
            box.subject.core.receive(
                subscriber: subscriber, subject: box, deliversCurrentValue: true, published: true)
        }
    }
}

/// What `ObservableObject`'s default `objectWillChange` looks for when reflecting over an object.
protocol PublishedField {
    var storageBox: any PublishedStorageBox { get }
}

/// The per-property storage, shared by all copies of one `Published` value.
protocol PublishedStorageBox: AnyObject {
    var objectWillChange: ObservableObjectPublisher? { get set }
}

extension Published: PublishedField {
    var storageBox: any PublishedStorageBox { box }
}

/// The storage of one `@Published` property: the value, a subject for `$x`, and the enclosing object's
/// `objectWillChange` publisher once installed. Named after Combine's class, as a subscription's mirror shows
/// it as the subject (and holds it until it ends).
// NB: @unchecked Sendable: the value lives in a thread-safe subject; the publisher slot is Mutex-guarded.
final class PublishedSubject<Value>: PublishedStorageBox, @unchecked Sendable {
    let subject: CurrentValueSubject<Value, Never>
    private let willChange = Mutex<ObservableObjectPublisher?>(nil)
    /// Subscriptions made by `assign(to: &$x)`; they live as long as the property.
    private let assignments = Mutex<[AnyCancellable]>([])

    init(_ value: Value) { subject = CurrentValueSubject(value) }

    var value: Value { subject.value }

    var objectWillChange: ObservableObjectPublisher? {
        get { willChange.withLock { $0 } }
        set { willChange.withLock { $0 = newValue } }
    }

    /// Keeps an `assign(to:)` subscription alive for the property's lifetime.
    func retain(_ cancellable: AnyCancellable) {
        assignments.withLock { $0.append(cancellable) }
    }

    /// Emits the new value to subscribers, then stores it (Combine's willSet timing).
    func willSet(_ newValue: Value) {
        subject.sendBeforeStoring(newValue)
    }
}

extension Publisher where Failure == Never {
    /// Republishes elements received from a publisher, by assigning them to a property marked as a publisher;
    /// the subscription lives as long as the property.
    ///
    /// ```swift
    /// $keyword.map { $0.count }.assign(to: &$keywordLength)
    /// ```
    public func assign(to published: inout Published<Output>.Publisher) {
        let box = published.box
        let cancellable = sink { [weak box] value in
            box?.objectWillChange?.send()
            box?.willSet(value)
        }
        box.retain(cancellable)
    }
}
