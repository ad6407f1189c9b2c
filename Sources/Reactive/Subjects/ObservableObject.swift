/// A type of object with a publisher that emits before the object has changed.
///
/// ```swift
/// final class Model: ObservableObject { @Published var name = "" }
/// model.objectWillChange.sink { print("will change") }
/// ```
public protocol ObservableObject: AnyObject {
    /// The type of publisher that emits before the object has changed.
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
    where ObjectWillChangePublisher.Failure == Never

    /// A publisher that emits before the object has changed.
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// A publisher that emits before any `@Published` property of the object changes. The object's
    /// `@Published` properties share one publisher, installed on first use.
    public var objectWillChange: ObservableObjectPublisher {
        var installed: ObservableObjectPublisher?
        var boxes: [any PublishedStorageBox] = []
        // Every class in the hierarchy: a superclass's @Published properties fire the same publisher.
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children {
                guard let field = child.value as? any PublishedField else { continue }
                let box = field.storageBox
                if installed == nil { installed = box.objectWillChange }
                boxes.append(box)
            }
            mirror = current.superclassMirror
        }
        let publisher = installed ?? ObservableObjectPublisher()
        for box in boxes where box.objectWillChange == nil { box.objectWillChange = publisher }
        return publisher
    }
}

/// A publisher that publishes changes from observable objects.
///
/// ```swift
/// let changes = ObservableObjectPublisher()
/// changes.send()
/// ```
public final class ObservableObjectPublisher: Publisher, @unchecked Sendable {
    /// This publisher emits void values.
    public typealias Output = Void
    /// This publisher never fails.
    public typealias Failure = Never

    private let subject = PassthroughSubject<Void, Never>()

    /// Creates an observable object publisher instance.
    public init() {}

    /// Attaches the subscriber, through a subscription named "ObservableObjectPublisher" as in Combine.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
        subject.core.receive(
            subscriber: subscriber, subject: subject, deliversCurrentValue: false, observableObject: true)
    }

    /// Sends the changed value to the downstream subscribers.
    public func send() { subject.send(()) }
}
