// swift-tools-version: 6.1
// An app that maps only through the typed API and turns Sluice's default traits off: it must build and run
// without libyaml or swift-argument-parser (scripts/test builds it and checks). A package of its own, as such an app is.
// With SLUICE_COMPILE_PROBE set it also has a CompileProbe target in Probe/, where scripts/test puts each program
// of CompileErrors/ in turn to check that the mistake it makes fails to compile with a message naming it.
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

if ProcessInfo.processInfo.environment["SLUICE_COMPILE_PROBE"] != nil {
    package.targets.append(.executableTarget(name: "CompileProbe", dependencies: [.product(name: "Sluice", package: sluiceIdentity)], path: "Probe"))
}
