import Domain
import Testing

/// Ids come from URLs: every Int, including the extremes, is an answer (nil), never a trap.
@Suite struct IdBoundsTests {
    @Test(arguments: [Int.min, Int.min + 1, -1, 0, 5001, Int.max])
    func albumLookupToleratesAnyId(_ id: Int) {
        #expect(AlbumViewModel(albums: EmbeddedData.albums).album(id: id) == nil)
    }

    @Test func albumLookupStillFindsByIndex() {
        #expect(AlbumViewModel(albums: EmbeddedData.albums).album(id: 1)?.id == 1)
    }
}
