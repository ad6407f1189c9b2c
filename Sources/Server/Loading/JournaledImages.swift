import Domain
import Foundation
import Reactive
import Synchronization

/// The album view model's image loader on a server that shares selections through its journal: its own
/// pipeline (`imageUrlSubject` → a download per URL → `switchToLatest` → `imageSubject`) runs on every
/// instance, and the "download" of a selection is the wait for that selection's image entry.
///
/// One instance downloads a selection from the network (`SelectionDownloads`) and journals what it got; every
/// instance applies the entry, in journal order, and `deliver` hands it to the selection's wait as the
/// answer of a GET: the image's bytes with its content type (and the entry's id, `LoadResponse.journalSeq`,
/// which the image carries to its event), or the download's failure in its own words. So the view model
/// turns the same answer into the same image, or the same reason, everywhere; and its own `switchToLatest`
/// is what drops the outcome of a selection a newer one replaced (that wait was cancelled).
///
/// ```swift
/// images.expect(selection: 41)                       // then the view model receives the selection's URL
/// models.albums.imageUrlSubject.send(url)            // its pipeline waits for the image of entry 41
/// images.deliver(selection: 41, seq: 42, .success((bytes, "image/png")))   // imageSubject emits it
/// ```
final class JournaledImages: DataLoader, Sendable {
    /// What an image entry says about its selection: the bytes and their content type, or why there are none.
    typealias Outcome = Result<(data: Data, contentType: String), LoadFailure>

    private struct State {
        /// The selection whose URL the view model receives next (`expect`).
        var expected: Int64?
        /// The waits of the view model's pipeline, by selection: the latest one only, once `switchToLatest`
        /// cancelled the older ones.
        var waits: [Int64: Wait] = [:]
    }

    private struct Wait {
        var url: URL
        var answer: PassthroughSubject<(data: Data, response: LoadResponse), LoadFailure>
    }

    private let state = Mutex(State())

    /// Names the selection whose URL the view model is sent next (on the thread that applies the journal,
    /// right before sending it).
    func expect(selection seq: Int64) {
        state.withLock { $0.expected = seq }
    }

    /// The wait for the image entry of the selection named by `expect`: it answers once `deliver` gets that
    /// entry, and stops waiting when cancelled (a newer selection). A URL sent without `expect` fails at once.
    func dataTaskPublisher(for url: URL) -> AnyPublisher<(data: Data, response: LoadResponse), LoadFailure> {
        let expected = state.withLock { state -> Int64? in
            defer { state.expected = nil }
            return state.expected
        }
        guard let seq = expected else {
            return Fail(error: LoadFailure(.other, "the selection is not in the journal")).eraseToAnyPublisher()
        }
        let answer = PassthroughSubject<(data: Data, response: LoadResponse), LoadFailure>()
        return
            answer
            .handleEvents(
                receiveSubscription: { [weak self] _ in
                    self?.state.withLock { $0.waits[seq] = Wait(url: url, answer: answer) }
                },
                receiveCancel: { [weak self] in
                    self?.state.withLock { _ = $0.waits.removeValue(forKey: seq) }
                }
            )
            .eraseToAnyPublisher()
    }

    /// Hands the image entry `seq` of the selection `selection` to that selection's wait. Returns false when
    /// nothing waits for it: a newer selection replaced it, or this view model never received it.
    @discardableResult
    func deliver(selection: Int64, seq: Int64, _ outcome: Outcome) -> Bool {
        guard let wait = state.withLock({ $0.waits.removeValue(forKey: selection) }) else { return false }
        switch outcome {
        case .success(let image):
            let response = LoadResponse(
                url: wait.url, statusCode: 200, headerFields: ["Content-Type": image.contentType], journalSeq: seq)
            wait.answer.send((image.data, response))
            wait.answer.send(completion: .finished)
        case .failure(let failure):
            wait.answer.send(completion: .failure(failure))
        }
        return true
    }

    /// Whether the view model waits for the image of `selection` (its latest selection, still pending).
    func isWaiting(for selection: Int64) -> Bool {
        state.withLock { $0.waits[selection] != nil }
    }
}
