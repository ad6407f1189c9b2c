/// Subscribes to one inner publisher on behalf of the merging object; described as Combine's (the operator's
/// name, its mirror naming the merging object's identifier).
@usableFromInline
struct FlatMapChild<OuterInput, Child: Publisher, Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Child.Output, Downstream.Failure == Child.Failure {
    @usableFromInline typealias Input = Child.Output
    @usableFromInline typealias Failure = Child.Failure
    @usableFromInline let owner: FlatMapOuter<OuterInput, Child, Downstream>
    @usableFromInline let id: Int
    @usableFromInline let combineIdentifier: CombineIdentifier

    @inlinable
    init(owner: FlatMapOuter<OuterInput, Child, Downstream>, id: Int) {
        self.owner = owner
        self.id = id
        combineIdentifier = CombineIdentifier()
    }

    @inlinable
    func receive(subscription: any Subscription) { owner.childSubscribed(id, subscription) }
    @inlinable
    func receive(_ input: Child.Output) -> Subscribers.Demand { owner.childValue(id, input) }
    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) { owner.childCompleted(id, completion) }

    @usableFromInline var description: String { owner.combineName }
    @usableFromInline var playgroundDescription: Any { description }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["parentSubscription": owner.combineIdentifier])
    }
}
