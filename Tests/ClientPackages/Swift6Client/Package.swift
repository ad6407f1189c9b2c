// swift-tools-version:6.0
// A client of LiveState's `Reactive` library in the Swift 6 language mode: seed-style Combine code with only
// `import Combine` changed, built by scripts/test.d/15-reactive-clients. Not part of the root package.
import Foundation
import PackageDescription

/// The LiveState checkout three levels up; its folder name is the package identity SwiftPM gives it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../..").standardizedFileURL

let package = Package(
    name: "Swift6Client",
    dependencies: [.package(path: root.path)],
    targets: [
        .executableTarget(
            name: "Swift6Client",
            dependencies: [.product(name: "Reactive", package: root.lastPathComponent)]
        )
    ],
    swiftLanguageModes: [.v6]
)
