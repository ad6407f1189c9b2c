import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct AnyCancellableTests {
    @Test func cancelsOnceAndOnDeinit() {
        var cancels = 0
        var token: AnyCancellable? = AnyCancellable { cancels += 1 }
        token?.cancel()
        token?.cancel()
        token = nil
        #expect(cancels == 1)
        do { _ = AnyCancellable { cancels += 1 } }
        #expect(cancels == 2)
    }

    @Test func storeInSetAndArray() {
        var set = Set<AnyCancellable>()
        var array: [AnyCancellable] = []
        let subject = PassthroughSubject<Int, Never>()
        subject.sink { _ in }.store(in: &set)
        subject.sink { _ in }.store(in: &array)
        #expect(set.count == 1)
        #expect(array.count == 1)
    }
}
