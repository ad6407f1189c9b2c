#!/usr/bin/env bash
# Reactive against OpenCombine 0.14 in the same run: builds Benchmarks/ReactiveBenchmark/main.swift twice
# in one throw-away release package (once on Sources/Reactive and Sources/ReactivePlatform, once with
# -D OPENCOMBINE on OpenCombine's sources), then runs the two binaries alternately ROUNDS times and prints,
# per case, each one's best median and the ratio. Only the ratio of one run means something on a shared machine.
#
#   OPENCOMBINE_DIR=<checkout of OpenCombine at tag 0.14.0> Benchmarks/ReactiveBenchmark/versus-opencombine.sh
#   ROUNDS=3 REACTIVE_BENCH_CASES="1 4 5" REACTIVE_BENCH_SCALE=0.5 ...   (defaults: 3, all cases, 1)
#
# Without OPENCOMBINE_DIR it clones https://github.com/OpenCombine/OpenCombine at 0.14.0.
# WORK sets the package directory (default .build-versus-opencombine, ignored by git).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-$root/.build-versus-opencombine}
rounds=${ROUNDS:-3}
mkdir -p "$work"

if [ -z "${OPENCOMBINE_DIR:-}" ]; then
    OPENCOMBINE_DIR=$work/OpenCombine
    [ -d "$OPENCOMBINE_DIR" ] ||
        git clone --quiet --depth 1 --branch 0.14.0 https://github.com/OpenCombine/OpenCombine "$OPENCOMBINE_DIR"
fi

# Copies a tree file by file, touching only files that changed, so the next build is incremental.
sync_tree() {
    local from=$1 to=$2
    mkdir -p "$to"
    (cd "$from" && find . -type f) | while read -r file; do
        if ! cmp -s "$from/$file" "$to/$file"; then
            mkdir -p "$(dirname "$to/$file")"
            cp "$from/$file" "$to/$file"
        fi
    done
}
sync_tree "$root/Sources/Reactive" "$work/Sources/Reactive"
sync_tree "$root/Sources/ReactivePlatform" "$work/Sources/ReactivePlatform"
sync_tree "$OPENCOMBINE_DIR/Sources/OpenCombine" "$work/Sources/OpenCombine"
sync_tree "$OPENCOMBINE_DIR/Sources/COpenCombineHelpers" "$work/Sources/COpenCombineHelpers"
for bench in BenchReactive BenchOpenCombine; do
    mkdir -p "$work/Sources/$bench"
    cmp -s "$root/Benchmarks/ReactiveBenchmark/main.swift" "$work/Sources/$bench/main.swift" ||
        cp "$root/Benchmarks/ReactiveBenchmark/main.swift" "$work/Sources/$bench/main.swift"
done

cat >"$work/Package.swift.new" <<'EOF'
// swift-tools-version:6.0
import PackageDescription

let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
let package = Package(
    name: "ReactiveVersusOpenCombine",
    targets: [
        .target(name: "ReactivePlatform", swiftSettings: settings),
        .target(name: "Reactive", dependencies: ["ReactivePlatform"], swiftSettings: settings),
        .target(name: "COpenCombineHelpers"),
        .target(
            name: "OpenCombine", dependencies: ["COpenCombineHelpers"],
            exclude: [
                "RootProtocols.swift.gyb", "Concurrency/Publisher+Concurrency.swift.gyb",
                "Publishers/Publishers.Encode.swift.gyb", "Publishers/Publishers.MapKeyPath.swift.gyb",
                "Publishers/Publishers.Catch.swift.gyb",
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "BenchReactive", dependencies: ["Reactive"], swiftSettings: settings),
        .executableTarget(
            name: "BenchOpenCombine", dependencies: ["OpenCombine"], swiftSettings: settings + [.define("OPENCOMBINE")]),
    ],
    cxxLanguageStandard: .cxx17
)
EOF
cmp -s "$work/Package.swift.new" "$work/Package.swift" || mv "$work/Package.swift.new" "$work/Package.swift"
rm -f "$work/Package.swift.new"

(cd "$work" && swift build -c release --product BenchReactive >&2 && swift build -c release --product BenchOpenCombine >&2)
bin=$(cd "$work" && swift build -c release --show-bin-path)

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
results=$(mktemp)
for round in $(seq 1 "$rounds"); do
    for bench in BenchReactive BenchOpenCombine; do
        REACTIVE_BENCH_TSV=1 "$bin/$bench" | grep '^row' >>"$results"
    done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo "OpenCombine 0.14 from $OPENCOMBINE_DIR, $rounds rounds A/B (Reactive, then OpenCombine), best median per case"
# Best (lowest) median of the rounds for each library and case, in the order the cases ran.
awk -F'\t' '
    { key = $3; if (!(key in order)) { order[key] = ++n; names[n] = key; unit[key] = $6 }
      if (!((key, $2) in best) || $4 < best[key, $2]) best[key, $2] = $4
      if (!((key, "floor") in best) || $5 < best[key, "floor"]) best[key, "floor"] = $5 }
    END {
      printf "%-46s %10s %12s %9s %8s  %s\n", "case", "Reactive", "OpenCombine", "speedup", "floor", "unit"
      for (i = 1; i <= n; i++) { k = names[i]; r = best[k, "Reactive"]; o = best[k, "OpenCombine"]
        printf "%-46s %10.1f %12.1f %8.1fx %8.1f  %s\n", k, r, o, (r > 0 ? o / r : 0), best[k, "floor"], unit[k] }
    }' "$results"
rm -f "$results"
