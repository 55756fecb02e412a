// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Sluice",
    // Mutex and Atomic (the Synchronization module) need macOS 15.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceWriters", targets: ["SluiceWriters"]),
        .library(name: "SluiceImport", targets: ["SluiceImport"]),
        .executable(name: "sluice", targets: ["SluiceCLI"]),
        // The benchmark harness, built apart so that the `sluice` people install does not carry it.
        .executable(name: "sluice-bench", targets: ["SluiceBenchCLI"]),
    ],
    // Mapping files are YAML (or JSON read as YAML), which needs libyaml. An app that maps only through the typed API
    // can leave them out: `.package(url: …, from: …, traits: [])`.
    traits: [
        .trait(name: "MappingFiles", description: "Mapping files: MappingSchema(mappingText:) and MappingSchema(contentsOfFile:), read with libyaml."),
        .trait(name: "FastGzip", description: "gzip inflated with Intel's ISA-L (libisal), about four times as fast as zlib, which is used otherwise."),
        .default(enabledTraits: ["MappingFiles", "FastGzip"]),
    ],
    // Package.resolved stays out of git (each machine's package mirror has its own commit ids), so the versions are
    // pinned here instead: bug fixes only.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", .upToNextMinor(from: "1.8.2")),
        // `swift package generate-documentation`: the DocC catalogs of Sluice and SluiceImport, built in CI.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", .upToNextMinor(from: "1.5.0")),
    ],
    targets: [
        .systemLibrary(
            name: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"]), .brew(["yajl"])]
        ),
        // Mapping files: libyaml's events, composed into nodes one field at a time (a tree of the whole file would
        // cost a kilobyte a field).
        .systemLibrary(name: "CLibYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]),
        // The command returns what compiling a mapping freed before the run's threads start (glibc's malloc_trim).
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(name: "CIsal", pkgConfig: "libisal", providers: [.apt(["libisal-dev"]), .brew(["isa-l"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        // libbz2 ships no pkg-config file on Debian: its header and library are in the default paths.
        .systemLibrary(name: "CBzip2", providers: [.apt(["libbz2-dev"]), .brew(["bzip2"])]),
        .systemLibrary(name: "CLzma", pkgConfig: "liblzma", providers: [.apt(["liblzma-dev"]), .brew(["xz"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // Parquet pages may be snappy-compressed (zstd is the default).
        .systemLibrary(name: "CSnappy", pkgConfig: "snappy", providers: [.apt(["libsnappy-dev"]), .brew(["snappy"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        // Pattern validators: PCRE2, whose match limit bounds the work a hostile value can cost.
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"]), .brew(["pcre2"])]),
        // The walks below the Swift boundary, in C++ behind a C interface (simdjson is C++ only): simdjson's On-Demand
        // walks and yajl's matched walk, which match keys against the plan's tables alike. Debian's libsimdjson is
        // built with threads enabled, which changes its types' layout: the define must match.
        .target(
            name: "CWalk",
            dependencies: ["CYajl"],
            cxxSettings: [.define("SIMDJSON_THREADS_ENABLED", to: "1"), .define("NDEBUG", .when(configuration: .release))],
            linkerSettings: [.linkedLibrary("simdjson")]
        ),
        // The array framer's 64-byte block scan, in C for the SSE2 byte masks Swift has no portable form of.
        .target(name: "CStructuralScan"),
        // The engine is one module on purpose: the state machine, conversion and column writes call each other per
        // value, and whole-module optimisation inlines across them. yajl reaches it through the walks (CWalk).
        .target(
            name: "Sluice",
            dependencies: ["CWalk", "CZlib", "CZstd", "CBzip2", "CLzma", "CPCRE2", "CStructuralScan",
                           .target(name: "CLibYAML", condition: .when(traits: ["MappingFiles"])),
                           .target(name: "CIsal", condition: .when(traits: ["FastGzip"]))]
        ),
        .target(
            name: "SluiceFixtures",
            dependencies: ["Sluice", "CZlib", "CZstd", "CBzip2", "CLzma"]
        ),
        // Files written from batches: Parquet, CSV/TSV and NDJSON, each written whole or not at all. Apart from the
        // engine, so that reading JSON into batches links no snappy and no file format.
        .target(
            name: "SluiceWriters",
            dependencies: ["Sluice", "CZstd", "CSnappy"]
        ),
        // `sluice import`: destinations (SQLite, PostgreSQL, CSV/TSV, NDJSON), exactly-once loading, checkpoints and
        // the run's accounting. Its own module, so that embedding the engine does not link a database.
        .target(
            name: "SluiceImport",
            dependencies: ["Sluice", "SluiceWriters", "CSQLite", "CPostgres"]
        ),
        // `sluice bench`: the contenders, the runner and the reports (a library, so that tests can run it small).
        .target(
            name: "SluiceBench",
            dependencies: ["Sluice", "SluiceFixtures", "CYajl", "CSimdjsonReference"]
        ),
        // The bench's simdjson ceiling: a plain On-Demand pass over the generated tweets, written by hand.
        .target(
            name: "CSimdjsonReference",
            path: "Benchmarks/CSimdjsonReference",
            cxxSettings: [.define("SIMDJSON_THREADS_ENABLED", to: "1"), .define("NDEBUG", .when(configuration: .release))],
            linkerSettings: [.linkedLibrary("simdjson")]
        ),
        // What both command-line programs share: how they run, report an error and draw a status line.
        .target(
            name: "SluiceTerminal",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "SluiceCLI",
            dependencies: ["Sluice", "SluiceWriters", "SluiceImport", "SluiceTerminal", "CMalloc", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "SluiceBenchCLI",
            dependencies: ["Sluice", "SluiceBench", "SluiceFixtures", "SluiceTerminal", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Benchmarks/ holds benchmark programs; they are targets here (not a separate package) so that they build
        // from any checkout directory name, and nothing in the library depends on them.
        .executableTarget(
            name: "EngineThroughput",
            dependencies: ["Sluice", "SluiceFixtures", "SluiceBench"],
            path: "Benchmarks/EngineThroughput"
        ),
        .executableTarget(
            name: "ImportThroughput",
            dependencies: ["SluiceFixtures", "SluiceBench"],
            path: "Benchmarks/ImportThroughput"
        ),
        .executableTarget(
            name: "ChildTableThroughput",
            dependencies: ["SluiceBench"],
            path: "Benchmarks/ChildTableThroughput"
        ),
        .executableTarget(
            name: "PipelineScaling",
            dependencies: ["Sluice", "SluiceFixtures", "SluiceBench", "CZstd"],
            path: "Benchmarks/PipelineScaling"
        ),
        // Random records for the sinks, shared by the tests and the fuzz harness; not a product.
        .target(
            name: "SluiceSinkCases",
            dependencies: ["Sluice", "SluiceWriters", "SluiceImport"],
            path: "Tests/SinkCases",
            exclude: ["check_sinks.py"]
        ),
        .testTarget(
            name: "SluiceTests",
            dependencies: ["Sluice", "SluiceWriters", "SluiceImport", "SluiceFixtures", "SluiceBench", "SluiceSinkCases", "CStructuralScan", "CZlib", "CZstd", "CBzip2", "CLzma", "CSQLite", "CPostgres"]
        ),
    ],
    cxxLanguageStandard: .cxx17
)

// The micro-benchmark package (Benchmarks/Micro, a package of its own) builds on the generated inputs and the
// benchmark contenders; they are products only for it, not part of what Sluice offers.
if Context.environment["SLUICE_MICRO_BENCHMARKS"] == "1" {
    package.products += [
        .library(name: "SluiceFixtures", targets: ["SluiceFixtures"]),
        .library(name: "SluiceBench", targets: ["SluiceBench"]),
    ]
}

// The libFuzzer harness (Tests/Fuzz): it links libFuzzer, so the target exists only when scripts/fuzz builds it with
// the sanitizers; a plain build or test never sees it.
if Context.environment["SLUICE_FUZZ"] == "1" {
    package.targets.append(.executableTarget(
        name: "SluiceFuzz",
        dependencies: ["SluiceSinkCases"],
        path: "Tests/Fuzz",
        swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])],
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]
    ))
}
