/// The release both programs belong to, as `--version` prints it; CHANGELOG.md lists what each one holds (a test
/// keeps the two in step).
public enum Release {
    public static let version = "0.1.0"
}
