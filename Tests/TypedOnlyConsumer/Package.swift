// swift-tools-version: 6.1
// An app that maps only through the typed API and turns Sluice's default traits off: it must build and run
// without Yams or swift-argument-parser (scripts/test builds it and checks). A package of its own, as such an app is.
import Foundation
import PackageDescription

// Sluice is a path dependency, whose identity is its folder's name, whatever the checkout is called.
let sluiceIdentity = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "TypedOnlyConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..", traits: [])],
    targets: [
        .executableTarget(name: "TypedOnlyConsumer", dependencies: [.product(name: "Sluice", package: sluiceIdentity)]),
    ]
)
