import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct AssignTests {
    final class Label { var text = "" }

    @Test func assignsAndReleasesTheObjectOnCancel() {
        let subject = PassthroughSubject<String, Never>()
        weak var weakLabel: Label?
        var token: AnyCancellable?
        do {
            let label = Label()
            weakLabel = label
            token = subject.assign(to: \.text, on: label)
            subject.send("hello")
            #expect(label.text == "hello")
        }
        #expect(weakLabel != nil)
        token?.cancel()
        #expect(weakLabel == nil)
    }

    @Test func anObjectWhoseDeinitCancelsTheSubscriberIsReleasedOnCompletionWithoutATrap() {
        final class Closing {
            var text = ""
            var onDeinit: (() -> Void)?
            deinit { onDeinit?() }
        }
        let subject = PassthroughSubject<String, Never>()
        var object: Closing? = Closing()
        let assign = Subscribers.Assign(object: object!, keyPath: \.text)
        object?.onDeinit = { assign.cancel() }
        subject.subscribe(assign)
        object = nil
        subject.send(completion: .finished)
        #expect(assign.object == nil)
    }

    @Test func ignoresValuesBeforeItsSubscriptionAndAfterCompletion() {
        let label = Label()
        let assign = Subscribers.Assign(object: label, keyPath: \.text)
        _ = assign.receive("early")
        #expect(label.text == "")
        assign.receive(subscription: Subscriptions.empty)
        _ = assign.receive("on time")
        assign.receive(completion: .finished)
        _ = assign.receive("late")
        #expect(label.text == "on time")
    }

    @Test func describesItselfAsCombineDoes() {
        let label = Label()
        let assign = Subscribers.Assign(object: label, keyPath: \.text)
        #expect(String(describing: assign) == "Assign Label.")
        #expect(assign.customMirror.children.map(\.label) == ["object", "keyPath", "status"])
    }
}
