import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct DeferredTests {
    @Test func createsThePublisherPerSubscriber() {
        var created = 0
        let deferred = Deferred { () -> Just<Int> in
            created += 1
            return Just(created)
        }
        #expect(created == 0)
        #expect(deferred.track().values == [1])
        #expect(deferred.track().values == [2])
    }
}
