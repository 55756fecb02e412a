import Sluice

/// How a ``ParquetWriter`` lays out its file.
public struct ParquetOptions: Sendable, Hashable {
    /// The unit dates are stored in, as `TIMESTAMP(isAdjustedToUTC=true, unit)`.
    public enum TimestampUnit: String, Sendable, Hashable, CaseIterable {
        /// Exact: Sluice's dates are nanoseconds. pyarrow, DuckDB and polars read it; Spark 3 does not.
        case nanoseconds = "ns"
        /// Floored to the microsecond: what every reader, Spark included, understands.
        case microseconds = "us"
    }

    /// Page compression (zstd by default).
    public var compression = ParquetCompression.default
    /// A row group ends once its columns hold about this many bytes before compression (128 MiB by default). Its
    /// finished pages wait on disk, beside the output, until it is written out.
    public var rowGroupBytes = 128 << 20
    /// A data page ends, at a row's boundary, once it holds about this many bytes (1 MiB by default).
    public var pageBytes = 1 << 20
    /// A text column's dictionary may grow to this many bytes in a row group (1 MiB by default); past that, the
    /// rest of the row group is written plain.
    public var dictionaryBytes = 1 << 20
    /// The unit dates are written in (nanoseconds by default; microseconds for readers that take no others).
    public var timestampUnit = TimestampUnit.nanoseconds

    /// Options with every default.
    public init() {}
}
