import Sluice
import SluiceWriters
import SluiceTerminal

/// The command line's own output files (a mapping, a plan, rejections, a summary), written whole or not at all and
/// replacing a file of that name; opening one says which partial files of killed runs it cleared from its directory.
enum OutputFiles {
    static func replacing(_ path: String) throws(SluiceError) -> FileOutput {
        let file = try FileOutput(path: path, ifExists: .replace)
        for partial in file.removedPartials { StandardError.print(notice(partial)) }
        return file
    }

    static func notice(_ partial: AbandonedPartial) -> String {
        "sluice: removed \(partial.path) (\(CountText.bytes(partial.bytes))), a partial file left by a run that was killed"
    }
}
