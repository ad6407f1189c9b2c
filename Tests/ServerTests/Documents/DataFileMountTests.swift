import Testing

@testable import Server

/// `DataFileMount`: a data file that is a mount point of its own (a container given one file) is told apart
/// from one in a mounted folder, its mountinfo escapes read back.
@Suite struct DataFileMountTests {
    static let mountinfo = """
        22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
        66 22 254:0 /home/me/project /data rw,relatime - ext4 /dev/vda rw
        67 22 254:0 /home/me/db.json /srv/db.json rw,relatime - ext4 /dev/vda rw
        68 22 254:0 /home/me/my\\040file.json /srv/my\\040file.json rw,relatime - ext4 /dev/vda rw
        """

    @Test(arguments: [
        ("/srv/db.json", true), ("/srv/my file.json", true), ("/data/db.json", false), ("/data", true),
        ("/srv/my\\040file.json", false),
    ])
    func findsExactlyTheMountPoints(path: String, mounted: Bool) {
        #expect(DataFileMount.isMountPoint(path, mountinfo: Self.mountinfo) == mounted)
    }
}
