// swift-tools-version:6.0
import PackageDescription

/// One settings list for every Swift target, so every module is checked the same way.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "LiveState",
    products: [
        .library(name: "Reactive", targets: ["Reactive"]),
        .library(name: "ReactiveTesting", targets: ["ReactiveTesting"]),
        .executable(name: "livestate", targets: ["livestate"]),
    ],
    targets: [
        // Combine's API on Linux: standard library, Dispatch, Synchronization (+ Foundation in Reactive/Foundation).
        .target(name: "Reactive", swiftSettings: swiftSettings),
        // Virtual-time scheduler for tests of time-based operators.
        .target(name: "ReactiveTesting", dependencies: ["Reactive"], swiftSettings: swiftSettings),
        // Models, embedded data and the seed view models. Knows no HTTP, no libevent.
        .target(name: "Domain", dependencies: ["Reactive"], swiftSettings: swiftSettings),
        // libevent (Debian's libevent-dev) as a system library.
        .systemLibrary(
            name: "CEvent",
            pkgConfig: "libevent",
            providers: [.apt(["libevent-dev"])]
        ),
        // SQLite (Debian's libsqlite3-dev) as a system library.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // PCRE2 (Debian's libpcre2-dev) as a system library: the 8-bit (UTF-8) library.
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"])]
        ),
        // Compiled regular expressions with hard limits on size and work per match (wraps CPCRE2).
        .target(name: "Patterns", dependencies: ["CPCRE2"], swiftSettings: swiftSettings),
        // jansson (Debian's libjansson-dev) as a system library.
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        // Strict RFC 8259 parsing to a Swift JSON value, duplicate keys refused (wraps CJansson).
        .target(name: "StrictJSON", dependencies: ["CJansson"], swiftSettings: swiftSettings),
        // HTTP as Swift values: requests, responses, replies, the router, errors, the list query, CORS, the
        // request log line, and the protocols of the loop and stream a request runs on. No C.
        .target(name: "HTTP", dependencies: ["Reactive"], swiftSettings: swiftSettings),
        // Everything that imports libevent: the loops, timers, the listener and its streams, sockets, the
        // HTTP client (and later its TLS path, as `Client/` + CEventOpenSSL).
        .target(name: "LibEvent", dependencies: ["HTTP", "Reactive", "CEvent"], swiftSettings: swiftSettings),
        // Everything that imports a database library: `SQLite/` now, `PostgreSQL/` (libpq) next.
        .target(name: "Storage", dependencies: ["Domain", "CSQLite"], swiftSettings: swiftSettings),
        // The service: routes, the /events hub, the command line, `App`. Imports no C module.
        .target(
            name: "Server",
            dependencies: ["HTTP", "LibEvent", "Storage", "Domain", "Reactive"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "livestate", dependencies: ["Server"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "ReactiveBenchmark",
            dependencies: ["Reactive"],
            path: "Benchmarks/ReactiveBenchmark",
            swiftSettings: swiftSettings
        ),
        // libFuzzer harness over request parsing and JSON decoding (scripts/test.d/80-fuzz builds it with
        // -sanitize=fuzzer); a plain build makes a replayer of the corpus and the crash regressions.
        .executableTarget(
            name: "LiveStateFuzz",
            dependencies: ["Server", "HTTP", "Domain"],
            path: "Fuzz/LiveStateFuzz",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReactiveTests",
            dependencies: ["Reactive", "ReactiveTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DomainTests",
            dependencies: ["Domain", "Reactive", "ReactiveTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "PatternsTests", dependencies: ["Patterns"], swiftSettings: swiftSettings),
        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ServerTests",
            dependencies: ["Server", "HTTP", "LibEvent", "Storage", "Domain", "Reactive", "ReactiveTesting"],
            swiftSettings: swiftSettings
        ),
    ]
)
