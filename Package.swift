// swift-tools-version:6.0
import PackageDescription

/// One settings list for every Swift target, so every module is checked the same way.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The settings of a target that wraps C libraries (`modules`: folders under `Sources/` with a `[system]`
/// `module.modulemap` and a `shim.h`), so that only this target can `import` them.
///
/// NB: a C module that is a SwiftPM dependency is importable by every target above the one that depends
/// on it (SwiftPM hands its module map down the whole graph), so "only LibEvent imports CEvent" would be
/// habit, not a check. Instead the module map goes to this target's compiler alone, and the target is
/// built with library evolution: targets above use its types without loading the C module, and an
/// `import CEvent` in them fails with "no such module". The libraries link through the module maps'
/// `link` lines.
func wrapping(_ modules: String...) -> [SwiftSetting] {
    swiftSettings + [.unsafeFlags(["-enable-library-evolution"] + moduleMapFlags(modules))]
}

/// `-fmodule-map-file` for each C module: what `wrapping` gives a wrapper, and what a test target that
/// `@testable import`s that wrapper also needs (it loads the wrapper's internal imports).
func moduleMapFlags(_ modules: [String]) -> [String] {
    modules.flatMap { ["-Xcc", "-fmodule-map-file=\(Context.packageDirectory)/Sources/\($0)/module.modulemap"] }
}

let package = Package(
    name: "LiveState",
    products: [
        .library(name: "Reactive", targets: ["Reactive"]),
        .library(name: "ReactiveTesting", targets: ["ReactiveTesting"]),
        .library(name: "ReactiveNetworking", targets: ["ReactiveNetworking"]),
        .executable(name: "livestate", targets: ["livestate"]),
    ],
    targets: [
        // Combine's API on Linux: standard library, Dispatch, Synchronization (+ Foundation in Reactive/Foundation).
        .target(name: "Reactive", dependencies: ["ReactivePlatform"], swiftSettings: swiftSettings),
        // The two calls into the C library that Reactive needs (the calling thread's identity, the debugger
        // trap of `breakpoint`), so that Reactive itself imports no C library.
        .target(name: "ReactivePlatform", swiftSettings: swiftSettings),
        // `URLSession.dataTaskPublisher`: the one part of Combine's API that needs FoundationNetworking (and so
        // libcurl), kept apart so that the server, which downloads through libevent, links neither.
        .target(name: "ReactiveNetworking", dependencies: ["Reactive"], swiftSettings: swiftSettings),
        // Virtual-time scheduler for tests of time-based operators.
        .target(name: "ReactiveTesting", dependencies: ["Reactive"], swiftSettings: swiftSettings),
        // Models, embedded data, the seed view models and the view model of a data file's resources. Knows no
        // HTTP, no libevent (libdeflate, through Deflate, packs the placeholder PNGs; StrictJSON holds the
        // file's schemaless items).
        .target(
            name: "Domain", dependencies: ["Reactive", "Deflate", "StrictJSON", "Support"], swiftSettings: swiftSettings
        ),
        // The one logger (`Log`, a loop's `LogBuffer`), the one JSON encoder configuration (`JSONCoding`) and
        // the carrier of a committed change from a view model to what shows it (`Versioned`, `ListChange`): a
        // leaf, so every target that logs or writes JSON (Storage among them) needs no HTTP for it, and Domain
        // and HTTP share the carrier.
        .target(name: "Support", swiftSettings: swiftSettings),
        // Compiled regular expressions with hard limits on size and work per match (wraps Sources/CPCRE2:
        // Debian's libpcre2-dev, the 8-bit library).
        .target(name: "Patterns", swiftSettings: wrapping("CPCRE2")),
        // Sets of a large collection's items as 64-bit words, combined a word at a time, and the loops over every
        // item a filter's answer takes, in C (wraps Sources/CBitsets: a header of inline functions, no library).
        .target(name: "Bitsets", swiftSettings: wrapping("CBitsets")),
        // Strict RFC 8259 parsing to a Swift JSON value, duplicate keys refused (wraps Sources/CJansson:
        // Debian's libjansson-dev), and a data file's items read in bulk (CSimdJSON).
        .target(name: "StrictJSON", dependencies: ["CSimdJSON"], swiftSettings: wrapping("CJansson")),
        // The C++ between StrictJSON and simdjson (Debian's libsimdjson-dev): a C function that reads many objects
        // of an array at once and writes each as StrictJSON's writer would. Built optimised even in a debug
        // build, like the C libraries it sits beside. NB: a compiled target, so SwiftPM hands its header to
        // every target above StrictJSON; only StrictJSON imports it (CompactItemReader).
        .target(
            name: "CSimdJSON",
            cxxSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("simdjson")]
        ),
        // Whole-buffer gzip of response bodies (wraps Sources/CDeflate: Debian's libdeflate-dev).
        .target(name: "Deflate", swiftSettings: wrapping("CDeflate")),
        // HTTP as Swift values: requests, responses, replies, the router, errors, the list query, CORS, the
        // request log line, and the protocols of the loop and stream a request runs on. No C.
        .target(
            name: "HTTP", dependencies: ["Reactive", "Patterns", "Bitsets", "StrictJSON", "Deflate", "Support"],
            swiftSettings: swiftSettings),
        // Everything that imports libevent (Sources/CEvent: Debian's libevent-dev): the loops, timers, the
        // listener and its streams, sockets, the HTTP client and its TLS path in `Client/` (Sources/CEventOpenSSL:
        // libevent's OpenSSL bufferevents and Debian's libssl-dev).
        .target(
            name: "LibEvent", dependencies: ["HTTP", "Reactive", "Support"],
            swiftSettings: wrapping("CEvent", "CEventOpenSSL")),
        // Everything that imports a database library: `SQLite/` (Sources/CSQLite: Debian's libsqlite3-dev)
        // and `PostgreSQL/` (Sources/CPostgres: Debian's libpq-dev, driven on a LibEvent loop).
        .target(
            name: "Storage",
            dependencies: ["Domain", "LibEvent", "Support"],
            swiftSettings: wrapping("CSQLite", "CPostgres")
        ),
        // The service: routes, the /events hub, the command line, `App`. Imports no C module.
        .target(
            name: "Server",
            dependencies: [
                "HTTP", "LibEvent", "Storage", "Domain", "Deflate", "Reactive", "StrictJSON", "Support", "Bitsets",
            ],
            // Compiled into the binary as `PackageResources.openapi_json` (no bundle, no file read at run time).
            resources: [
                .embedInCode("Resources/openapi.json"), .embedInCode("Resources/data-page.html"),
                .embedInCode("Resources/data-page.js"), .embedInCode("Resources/data-page.css"),
                .embedInCode("Resources/livestate.js"),
            ],
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
            dependencies: ["Server", "HTTP", "Domain", "StrictJSON"],
            path: "Fuzz/LiveStateFuzz",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReactiveTests",
            dependencies: ["Reactive", "ReactiveNetworking", "ReactiveTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DomainTests",
            dependencies: ["Domain", "Deflate", "Reactive", "ReactiveTesting", "StrictJSON", "Support"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DeflateTests", dependencies: ["Deflate"], swiftSettings: swiftSettings),
        .testTarget(name: "PatternsTests", dependencies: ["Patterns"], swiftSettings: swiftSettings),
        .testTarget(name: "BitsetsTests", dependencies: ["Bitsets"], swiftSettings: swiftSettings),
        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"], swiftSettings: swiftSettings),
        // Helpers shared by the test targets: `eventually`, `LockedBox`, the raw HTTP client, the one harness
        // that starts the built binary (`LivestateProcess`), the fake upstream, the `/events` reader.
        .target(name: "TestSupport", dependencies: ["HTTP"], path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPTests", dependencies: ["HTTP", "Deflate", "Reactive", "StrictJSON", "Support", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LibEventTests",
            dependencies: ["LibEvent", "HTTP", "Reactive", "TestSupport"],
            swiftSettings: swiftSettings + [.unsafeFlags(moduleMapFlags(["CEvent", "CEventOpenSSL"]))]
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: ["Storage", "LibEvent", "Domain", "Support", "TestSupport"],
            swiftSettings: swiftSettings + [
                .unsafeFlags(moduleMapFlags(["CSQLite", "CPostgres", "CEvent", "CEventOpenSSL"]))
            ]
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "HTTP", "LibEvent", "Storage", "Domain", "Reactive", "ReactiveTesting", "TestSupport",
                "Deflate", "StrictJSON", "Support",
            ],
            // NB: Storage's module maps because TodoRoutesStorageFailureTests breaks the file under a running
            // server through Storage's SQLiteConnection (`@testable import Storage` loads its C modules).
            swiftSettings: swiftSettings + [.unsafeFlags(moduleMapFlags(["CSQLite", "CPostgres"]))]
        ),
    ],
    cxxLanguageStandard: .cxx17
)
