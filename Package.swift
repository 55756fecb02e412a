// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Sluice",
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .executable(name: "sluice", targets: ["SluiceCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"]), .brew(["yajl"])]
        ),
        // The engine is one module on purpose: tokenizer callbacks, the state machine, conversion and
        // column writes call each other per value, and whole-module optimisation inlines across them.
        .target(
            name: "Sluice",
            dependencies: ["CYajl", .product(name: "Yams", package: "Yams")]
        ),
        .executableTarget(
            name: "SluiceCLI",
            dependencies: ["Sluice", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "SluiceTests",
            dependencies: ["Sluice"]
        ),
    ]
)
