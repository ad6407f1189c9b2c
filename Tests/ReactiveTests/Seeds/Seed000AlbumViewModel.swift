// Seed 000: AlbumViewModel, as written in the post but for
// `import Combine` → `import Reactive` and UIKit: the image is `Data` (marked `// CHANGED:`).
import Foundation
import Reactive
import ReactiveNetworking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct AlbumModel: Codable {
    let albumId: Int
    let id: Int
    let title: String
    let url: String
    let thumbnailUrl: String
}

final class AlbumViewModel {
    let albumSubject = CurrentValueSubject<[AlbumModel], Never>([AlbumModel]())
    let imageUrlSubject = CurrentValueSubject<String, Never>("")
    // CHANGED: UIImage? → Data?
    let imageSubject = CurrentValueSubject<Data?, Never>(nil)
    private let urlString: String
    private var cancellables = Set<AnyCancellable>()

    init(urlString: String = "https://jsonplaceholder.typicode.com/photos") {
        self.urlString = urlString
        addSubscriber()
    }

    private func addSubscriber() {
        guard let url = URL(string: urlString) else { return }
        URLSession
            .shared
            .dataTaskPublisher(for: url)
            .receive(on: DispatchQueue.global(qos: .background))
            .tryMap { output in
                return output.data
            }
            .decode(type: [AlbumModel].self, decoder: JSONDecoder())
            .sink { completion in
                switch completion {
                case .finished: print("Successfully get album info")
                case .failure(let error): print(error.localizedDescription)
                }
            } receiveValue: { [weak self] returnedValue in
                guard let self = self else { return }
                self.albumSubject.send(returnedValue)
            }
            .store(in: &cancellables)
        imageUrlSubject
            .compactMap { urlString in
                return URL(string: urlString)
            }
            .map { url in
                URLSession
                    .shared
                    .dataTaskPublisher(for: url)
                    .map(\.data)
                    .compactMap { data in
                        // CHANGED: UIImage(data: data) → the bytes, if any
                        return data.isEmpty ? nil : data
                    }
            }
            .switchToLatest()
            .sink { completion in
                switch completion {
                case .failure(let _): break
                case .finished: print("Successfully get Image URL")
                }
            } receiveValue: { [weak self] image in
                guard let self = self else { return }
                self.imageSubject.send(image)
            }
            .store(in: &cancellables)
    }
}

@Suite struct Seed000AlbumViewModelTests {
    private static func files(imageCount: Int) -> [String: Data] {
        var files: [String: Data] = [:]
        for id in 1...imageCount { files["img/\(id).png"] = Data("image \(id)".utf8) }
        return files
    }

    private static func albumsJSON(baseURL: String, count: Int) -> Data {
        let albums = (1...count).map { id in
            AlbumModel(
                albumId: 1, id: id, title: "photo \(id)", url: baseURL + "img/\(id).png",
                thumbnailUrl: baseURL + "img/\(id).png")
        }
        return try! JSONEncoder().encode(albums)
    }

    @Test func albumsLoadThenTheSelectedImageIsFetched() throws {
        var files = Self.files(imageCount: 3)
        let probe = try LoopbackServer(files: files)
        files["photos"] = Self.albumsJSON(baseURL: probe.baseURL, count: 3)
        try files["photos"]!.write(to: probe.root.appendingPathComponent("photos"))

        let viewModel = AlbumViewModel(urlString: probe.baseURL + "photos")
        #expect(waitUntil { viewModel.albumSubject.value.count == 3 })
        #expect(viewModel.albumSubject.value.map(\.title) == ["photo 1", "photo 2", "photo 3"])

        // The table's didSelectRowAt: send the row's URL.
        viewModel.imageUrlSubject.send(viewModel.albumSubject.value[1].url)
        #expect(waitUntil { viewModel.imageSubject.value != nil })
        #expect(viewModel.imageSubject.value == Data("image 2".utf8))
    }

    @Test func switchToLatestDropsTheImageOfAnEarlierSelection() throws {
        let server = try LoopbackServer(files: Self.files(imageCount: 3))
        let viewModel = AlbumViewModel(urlString: server.baseURL + "no-albums")
        let shown = Locked<[Data]>([])
        var cancellables = Set<AnyCancellable>()
        viewModel.imageSubject.compactMap { $0 }.sink { image in shown.mutate { $0.append(image) } }
            .store(in: &cancellables)

        // Two quick taps: the first request is cancelled as soon as the second URL arrives.
        viewModel.imageUrlSubject.send(server.baseURL + "img/1.png")
        viewModel.imageUrlSubject.send(server.baseURL + "img/3.png")

        #expect(waitUntil { !shown.value.isEmpty })
        _ = waitUntil(seconds: 0.3) { shown.value.count > 1 }  // give a stale image the chance to (wrongly) arrive
        #expect(shown.value == [Data("image 3".utf8)])
    }

    @Test func anUnreachableImageLeavesTheLastImageAndEndsTheImageStream() throws {
        let server = try LoopbackServer(files: Self.files(imageCount: 1))
        let viewModel = AlbumViewModel(urlString: server.baseURL + "no-albums")
        viewModel.imageUrlSubject.send(server.baseURL + "img/1.png")
        #expect(waitUntil { viewModel.imageSubject.value != nil })
        // A 404 body is not empty, so it arrives as "image" bytes; a closed port is a transport error instead.
        viewModel.imageUrlSubject.send("http://127.0.0.1:1/img/2.png")
        _ = waitUntil(seconds: 0.5) { viewModel.imageSubject.value != Data("image 1".utf8) }
        #expect(viewModel.imageSubject.value == Data("image 1".utf8))
        // The failure ended the switchToLatest stream (as in Combine): later selections are ignored.
        viewModel.imageUrlSubject.send(server.baseURL + "img/1.png")
        #expect(viewModel.imageSubject.value == Data("image 1".utf8))
    }
}
