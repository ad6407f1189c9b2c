import Domain
import Foundation
import Reactive
import Synchronization
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// `/albums` through the whole router, in-process.
@Suite struct AlbumRoutesTests {
    private let harness: RouteHarness
    init() throws { harness = try RouteHarness() }

    @Test func listsTheFiveThousandPhotosFromTheSnapshot() throws {
        let response = try harness.send(.get, "/albums")
        #expect(response.status == 200)
        #expect(response.headers["X-Total-Count"] == "5000")
        let albums = try JSONDecoder().decode([AlbumModel].self, from: Data(response.body))
        #expect(albums == EmbeddedData.albums)
        #expect(response.text.contains(#""url":"/placeholder/600/"#))
    }

    @Test func filtersByAlbumAndPages() throws {
        #expect(try harness.decode([AlbumModel].self, "/albums?albumId=3").map(\.id) == Array(101...150))
        let page = try harness.send(.get, "/albums?albumId=3&_page=2&_limit=20")
        #expect(try JSONDecoder().decode([AlbumModel].self, from: Data(page.body)).map(\.id) == Array(121...140))
        #expect(page.headers["X-Total-Count"] == "50")
        #expect(
            page.headers["Link"]
                == #"</albums?albumId=3&_page=1&_limit=20>; rel="first", </albums?albumId=3&_page=1&_limit=20>; rel="prev", </albums?albumId=3&_page=3&_limit=20>; rel="next", </albums?albumId=3&_page=3&_limit=20>; rel="last""#
        )
        #expect(try harness.decode([AlbumModel].self, "/albums?_start=4998&_end=5003").map(\.id) == [4999, 5000])
        #expect(try harness.send(.get, "/albums?_page=second").status == 400)
    }

    @Test func photosIsJsonplaceholdersNameForTheSameList() throws {
        let photos = try harness.send(.get, "/photos?albumId=3&_page=2&_limit=20")
        let albums = try harness.send(.get, "/albums?albumId=3&_page=2&_limit=20")
        #expect(photos.status == 200 && photos.body == albums.body)
        #expect(photos.headers["X-Total-Count"] == "50")
        // Links point back at the name the client used.
        #expect(photos.headers["Link"]?.hasPrefix("</photos?albumId=3&_page=1&_limit=20>") == true)
        #expect(try harness.decode(AlbumModel.self, "/photos/42") == EmbeddedData.albums[41])
        let missing = try harness.send(.get, "/photos/5001")
        #expect(missing.status == 404 && missing.text.contains("There is no photo with id 5001."))
    }

    @Test func getsOnePhotoOr404() throws {
        #expect(try harness.decode(AlbumModel.self, "/albums/5000") == EmbeddedData.albums[4999])
        #expect(try harness.send(.get, "/albums/5001").status == 404)
    }

    @Test func refreshReloadsTheEmbeddedSet() throws {
        let response = try harness.send(.post, "/albums/refresh")
        #expect(response.status == 200)
        #expect(try JSONDecoder().decode([AlbumModel].self, from: Data(response.body)).count == 5000)
    }

    @Test func selectionByURLOrIdIsSentIntoImageUrlSubject() throws {
        let urls = Mutex<[String]>([])
        let subscription = harness.seeds.models.albums.imageUrlSubject.sink { url in urls.withLock { $0.append(url) } }
        defer { subscription.cancel() }
        let byURL = try harness.send(.post, "/albums/selection", json: #"{"url":"/placeholder/600/abcdef"}"#)
        #expect(byURL.status == 202)
        #expect(byURL.text == #"{"url":"/placeholder/600/abcdef"}"#)
        let byID = try harness.send(.post, "/albums/selection", json: #"{"id":1}"#)
        #expect(byID.status == 202)
        #expect(byID.text == #"{"url":"\#(EmbeddedData.albums[0].url)"}"#)
        #expect(urls.withLock { $0 } == ["", "/placeholder/600/abcdef", EmbeddedData.albums[0].url])
    }

    @Test func selectionRefusals() throws {
        #expect(try harness.send(.post, "/albums/selection", json: #"{"id":9999}"#).status == 404)
        #expect(try harness.send(.post, "/albums/selection", json: #"{"url":""}"#).status == 422)
        #expect(try harness.send(.post, "/albums/selection", json: #"{}"#).status == 400)
        #expect(try harness.send(.post, "/albums/selection", json: #"{"url":"/a","id":1}"#).status == 400)
        #expect(try harness.send(.post, "/albums/selection", json: #"{"id":"one"}"#).status == 400)
        let notAURL = try harness.send(.post, "/albums/selection", json: #"{"url":"not a url"}"#)
        #expect(notAURL.status == 422)
        #expect(notAURL.text.contains(#""error":"invalid_url""#))
        let fraction = try harness.send(.post, "/albums/selection", json: #"{"id":42.5}"#)
        #expect(fraction.status == 400)
        #expect(
            try ErrorBody(fraction).message == "field 'id' must be an integer, not a number with a fraction or exponent"
        )
        let huge = try harness.send(.post, "/albums/selection", json: #"{"id":18446744073709551616}"#)
        #expect(huge.status == 400)
        #expect(try ErrorBody(huge).message.hasPrefix("field 'id' is out of range"))
        let unknown = try harness.send(.post, "/albums/selection", json: #"{"url":"/a","ID":1}"#)
        #expect(try ErrorBody(unknown).message == "unknown field 'ID'; the fields are url, id")
    }

    @Test func theImageIsServedSoThatNothingInItRuns() throws {
        harness.seeds.models.albums.imageSubject.send(AlbumImage(url: "/p", contentType: "image/png", data: [137, 80]))
        let image = try harness.send(.get, "/albums/selection/image")
        #expect(image.headers["X-Content-Type-Options"] == "nosniff")
        #expect(image.headers["Content-Security-Policy"] == "default-src 'none'; sandbox")
    }

    @Test func aPendingOrFailedSelectionIsReportedBesideTheImageOrInThe404() throws {
        let albums = harness.seeds.models.albums
        albums.selectionStatus.send(.pending(url: "http://slow.test/1.png"))
        let pending = try harness.send(.get, "/albums/selection")
        #expect(pending.status == 404)
        #expect(pending.text.contains(#""error":"not_found""#))
        #expect(pending.text.contains(#""pending":{"url":"http://slow.test/1.png"}"#))
        albums.imageSubject.send(AlbumImage(url: "/p", contentType: "image/png", data: [137, 80]))
        albums.selectionStatus.send(.failed(url: "http://dead.test/2.png", reason: "the host could not be reached"))
        let failed = try harness.send(.get, "/albums/selection")
        #expect(failed.status == 200)
        #expect(try failed.decoded(ImageInfo.self) == ImageInfo(url: "/p", contentType: "image/png", bytes: 2))
        #expect(
            failed.text.contains(#""failed":{"reason":"the host could not be reached","url":"http://dead.test/2.png"}"#)
        )
        #expect(!failed.text.contains("pending"))
    }

    @Test func currentImageIs404BeforeTheFirstThenItsInfoAndBytes() throws {
        #expect(try harness.send(.get, "/albums/selection").status == 404)
        #expect(try harness.send(.get, "/albums/selection/image").status == 404)
        harness.seeds.models.albums.imageSubject.send(AlbumImage(url: "/p", contentType: "image/png", data: [137, 80]))
        let info = try harness.send(.get, "/albums/selection").decoded(ImageInfo.self)
        #expect(info == ImageInfo(url: "/p", contentType: "image/png", bytes: 2))
        let image = try harness.send(.get, "/albums/selection/image")
        #expect(image.status == 200)
        #expect(image.headers["Content-Type"] == "image/png")
        #expect(image.body == [137, 80])
    }
}

/// The `image` topic's value as `GET /albums/selection` answers it.
private struct ImageInfo: Decodable, Equatable {
    var url: String
    var contentType: String
    var bytes: Int
}
