// swift-tools-version: 6.1
// Micro-benchmarks (ordo-one/benchmark): `SLUICE_MICRO_BENCHMARKS=1 swift package benchmark` from this folder (the
// variable makes Sluice offer the generated inputs and contenders as products). A package of its own, so that
// building Sluice and its tests never builds the benchmark tool.
import Foundation
import PackageDescription

// Sluice is a path dependency, whose identity is its folder's name, whatever the checkout is called.
let sluiceIdentity = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "SluiceMicroBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "SluiceMicro",
            dependencies: [
                .product(name: "Sluice", package: sluiceIdentity),
                .product(name: "SluiceFixtures", package: sluiceIdentity),
                .product(name: "SluiceBench", package: sluiceIdentity),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SluiceMicro",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
