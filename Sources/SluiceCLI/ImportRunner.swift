import SluiceTerminal
import ArgumentParser
import Dispatch
import Foundation
import Sluice
import SluiceWriters
import SluiceImport
import Synchronization

/// Runs an import for `sluice import` and `sluice map` alike: progress, the first rejections, the summary and
/// the rejections by kind on standard error; the rejects file; SIGINT and SIGTERM; the exit status.
enum ImportRunner {
    /// Rejection lines printed before the rest are only counted (and listed by kind at the end).
    static let rejectionLinesShown = 10

    /// Runs the job `makeJob` builds from the command's options; a job it cannot build is a failure with its reason.
    static func run(options: ReadingOptions, job makeJob: () throws(SluiceError) -> ImportJob) throws {
        // A reader that closes the output pipe (`| head`) fails the write instead of killing the process, so that
        // the run still ends with its summary: what was written, and what the closed pipe refused.
        signal(SIGPIPE, SIG_IGN)
        let job: ImportJob
        do {
            job = try makeJob()
        } catch {
            StandardError.print("sluice: error: \(error)")
            throw ExitCode.failure
        }
        let importer = Importer(job)
        let rejectOutput: FileOutput?
        do {
            rejectOutput = try options.rejects.map { path throws(SluiceError) in try OutputFiles.replacing(path) }
        } catch {
            StandardError.print("sluice: error: \(error)")
            throw ExitCode.failure
        }
        let signals = SignalWatch { importer.requestStop() }
        defer { signals.stop() }

        let report = ProgressReport(lineInterval: options.progressEvery, quiet: options.quiet)
        var shown = 0
        var observer = Importer.Observer()
        observer.inputStarted = { monitor, index, name in
            let count = options.inputNames.count
            report.watch(monitor, label: "[\(index + 1)/\(count)] \(name == "-" ? "<stdin>" : name) → \(job.destination)")
        }
        observer.inputFinished = { report.finishInput() }
        observer.removedPartial = { partial in report.print(OutputFiles.notice(partial)) }
        observer.rejected = { (rejection, source, _) throws(SluiceError) in
            if !options.quiet {
                if shown < rejectionLinesShown {
                    report.print("sluice: \(source == "-" ? "<stdin>" : source): rejected \(rejection)")
                } else if shown == rejectionLinesShown {
                    report.print("sluice: more rejections are counted, not printed (the summary lists them by kind)")
                }
                shown += 1
            }
            try rejectOutput.map { output throws(SluiceError) in try output.write(rejection.jsonText(source: source) + "\n") }
        }
        let summary = importer.run(observer: observer)
        report.stop()
        var outcome = summary.outcome
        var errorCategory = summary.errorCategory
        do {
            // The rejections read are reported whatever the outcome.
            try rejectOutput?.commit()
        } catch {
            outcome = .failed("\(error)")
            errorCategory = error.category
        }
        let readAnything = summary.recordsRead > 0 || summary.bytesRead > 0
        if !options.quiet && (readAnything || outcome == .complete) {
            StandardError.print("sluice: " + summary.line)
            if shown > rejectionLinesShown || (summary.rejectionGroups.count > 1 && shown > 0) {
                for group in summary.rejectionGroups.sorted(by: { $0.count > $1.count }) {
                    StandardError.print("sluice:   " + ImportSummary.describe(group))
                }
            }
        }
        if options.reportUnmapped {
            // A failed run counts only the records that stayed, which says nothing about what was mapped.
            var failed = false
            if case .failed = summary.outcome { failed = true }
            if !failed && summary.recordsBehindUnmappedKeys > summary.recordsRead && !summary.unmappedKeys.isEmpty {
                StandardError.print("sluice: unmapped keys are counted over the \(summary.recordsBehindUnmappedKeys) records mapped ahead, not only the \(summary.recordsRead) read")
            }
            for (path, count) in summary.unmappedKeys.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                StandardError.print("sluice: unmapped \(path): \(count)")
            }
        }
        if let path = options.summaryJSON {
            var final = summary
            final.outcome = outcome
            final.errorCategory = errorCategory
            do {
                let output = try OutputFiles.replacing(path)
                try output.write(final.jsonText)
                try output.commit()
            } catch {
                StandardError.print("sluice: error: \(error)")
                throw ExitCode.failure
            }
        }
        switch outcome {
        case .failed(let message): StandardError.print("sluice: error: " + message)
        case .interrupted:
            StandardError.print("sluice: interrupted; " + job.destination.leftAfterInterrupt)
        default: break
        }
        if outcome.exitStatus != 0 { throw ExitCode(outcome.exitStatus) }
    }
}

/// SIGINT and SIGTERM ask the run to stop (the batch in hand is finished and committed); a second one ends the
/// process at once, which committed transactions survive.
final class SignalWatch {
    private let signals: TerminationSignals

    init(onFirst: @escaping @Sendable () -> Void) {
        let count = Mutex(0)
        signals = TerminationSignals { _ in
            let seen = count.withLock { value in
                value += 1
                return value
            }
            if seen == 1 {
                onFirst()
            } else {
                _exit(130)
            }
        }
    }

    func stop() {
        signals.stop()
    }
}
