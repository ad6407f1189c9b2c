import Foundation
import Reactive
import Synchronization

@testable import Domain

/// Records a future's single outcome.
final class Outcome<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, NetworkError>?>(nil)

    init(_ future: Future<T, NetworkError>) {
        future.subscribe(
            Subscribers.Sink(
                receiveCompletion: { [self] completion in
                    if case .failure(let error) = completion { value.withLock { $0 = .failure(error) } }
                },
                receiveValue: { [self] output in value.withLock { $0 = .success(output) } }))
    }

    var result: Result<T, NetworkError>? { value.withLock { $0 } }
}

let upstreamBase = "http://upstream.test/api"
let upstreamPostsJSON = Data(#"[{"userId":1,"id":7,"title":"t","body":"b"}]"#.utf8)
