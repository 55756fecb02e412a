"""Reads a Parquet file back through pyarrow, DuckDB or polars (three readers of their own) and prints every value in a canonical text form that the
Swift tests compare with the values they generated: one line per row, one tab-separated token per column.

  null            a null value
  i:<decimal>     an integer (int64 or uint64)
  d:<int64>       a double, as the signed integer of its IEEE 754 bits (so -0.0 and 0.0 differ)
  b:true|false    a Boolean
  t:<int64>       a timestamp, in the file's unit since 1970-01-01T00:00:00Z
  s:<hex>         text (also JSON), as the hex of its UTF-8
  x:<hex>         bytes
  n:<text>        a decimal, in plain notation with its scale's digits after the point (Sluice's canonical text)
  [a,b,...]       a list of the above

With `statistics`, prints instead one line per row group and column from the footer, as pyarrow reads it:
"<row group> <column> <null count> <min token> <max token>" (tokens as above; "-" when the footer has none).

Usage: read_values.py pyarrow|duckdb|polars|statistics FILE.parquet
"""
import struct
import sys

import pyarrow as pa


def token(value, arrow_type):
    if value is None:
        return "null"
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return "[" + ",".join(token(element, arrow_type.value_type) for element in value) + "]"
    if pa.types.is_boolean(arrow_type):
        return "b:true" if value else "b:false"
    if pa.types.is_integer(arrow_type):
        return "i:%d" % value
    if pa.types.is_floating(arrow_type):
        return "d:%d" % struct.unpack("<q", struct.pack("<d", value))[0]
    if pa.types.is_timestamp(arrow_type):
        return "t:%d" % value
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
        return "x:" + value.hex()
    if pa.types.is_decimal(arrow_type):
        return "n:" + format(value, "f")
    if isinstance(value, str):
        return "s:" + value.encode("utf-8").hex()
    raise SystemExit("unexpected value %r of type %s" % (value, arrow_type))


def integer_timestamps(array_type):
    """The type with every timestamp read as its integer count, so that nanoseconds are not rounded through Python
    datetimes, and with polars' view and large types as their plain ones."""
    if pa.types.is_timestamp(array_type):
        return pa.int64()
    if pa.types.is_string_view(array_type) or pa.types.is_large_string(array_type):
        return pa.string()
    if pa.types.is_binary_view(array_type) or pa.types.is_large_binary(array_type):
        return pa.binary()
    if pa.types.is_list(array_type) or pa.types.is_large_list(array_type) or pa.types.is_list_view(array_type):
        return pa.list_(pa.field(array_type.value_field.name, integer_timestamps(array_type.value_type), array_type.value_field.nullable))
    if isinstance(array_type, pa.ExtensionType):
        return array_type.storage_type
    return array_type


def normalised(table):
    columns = []
    for column in table.columns:
        if isinstance(column.type, pa.ExtensionType):
            column = pa.chunked_array([chunk.storage for chunk in column.chunks], column.type.storage_type)
        target = integer_timestamps(column.type)
        # Timestamps keep their own type's tag in the token: cast them after noting which are timestamps.
        columns.append((column.cast(target) if target != column.type else column, column.type))
    return columns


def as_declared_text(declared, actual):
    """`actual` with binary read as text where the file declares text or JSON (also in lists)."""
    binary = pa.types.is_binary(actual) or pa.types.is_large_binary(actual) or pa.types.is_binary_view(actual)
    if binary and (isinstance(declared, pa.BaseExtensionType) or pa.types.is_string(declared)):
        return pa.string()
    if pa.types.is_list(declared) and (pa.types.is_list(actual) or pa.types.is_large_list(actual)):
        return pa.list_(as_declared_text(declared.value_type, actual.value_type))
    return actual


def print_rows(table):
    columns = normalised(table)
    values = [column.to_pylist() for column, _ in columns]
    out = sys.stdout
    for row in range(table.num_rows):
        out.write("\t".join(tagged(values[index][row], original) for index, (_, original) in enumerate(columns)))
        out.write("\n")


def tagged(value, original_type):
    if pa.types.is_timestamp(original_type):
        return "null" if value is None else "t:%d" % value
    if (pa.types.is_list(original_type) or pa.types.is_large_list(original_type)) and pa.types.is_timestamp(original_type.value_type):
        return "null" if value is None else "[" + ",".join("t:%d" % element for element in value) + "]"
    return token(value, integer_timestamps(original_type))


def bound_token(value, arrow_type):
    if isinstance(arrow_type, pa.ExtensionType):
        arrow_type = arrow_type.storage_type
    if isinstance(value, bytes) and not pa.types.is_binary(arrow_type):
        # Text bounds of a JSON column come back undecoded.
        return "s:" + value.hex()
    return token(value, arrow_type)


def main():
    reader, path = sys.argv[1], sys.argv[2]
    if reader == "pyarrow":
        import pyarrow.parquet as pq
        print_rows(pq.read_table(path))
    elif reader == "duckdb":
        import duckdb
        connection = duckdb.connect()
        # DuckDB's own Parquet reader; Arrow only carries its result out.
        relation = connection.sql("SELECT * FROM read_parquet('%s')" % path.replace("'", "''"))
        print_rows(relation.to_arrow_table())
    elif reader == "polars":
        import polars
        import pyarrow.parquet as pq
        # polars' own Rust reader; Arrow only carries its result out. polars has no JSON type and reads JSON
        # columns as binary (docs/import.md): their tokens are text, as from the other readers.
        table = polars.read_parquet(path).to_arrow()
        declared = pq.read_schema(path)
        for index, field in enumerate(table.schema):
            target = as_declared_text(declared.field(index).type, field.type)
            if target != field.type:
                table = table.set_column(index, field.name, table.column(index).cast(target))
        print_rows(table)
    elif reader == "statistics":
        import pyarrow.parquet as pq
        parquet = pq.ParquetFile(path)
        schema = parquet.schema_arrow
        metadata = parquet.metadata
        for group in range(metadata.num_row_groups):
            for column in range(metadata.num_columns):
                statistics = metadata.row_group(group).column(column).statistics
                arrow_type = schema.field(column).type
                if pa.types.is_list(arrow_type):
                    arrow_type = arrow_type.value_type
                if statistics is None:
                    print(group, column, "-", "-", "-")
                    continue
                bounds = ["-", "-"]
                if statistics.has_min_max and pa.types.is_timestamp(arrow_type):
                    # The physical values: a datetime would round nanoseconds away.
                    bounds = ["t:%d" % statistics.min_raw, "t:%d" % statistics.max_raw]
                elif statistics.has_min_max:
                    bounds = [bound_token(statistics.min, arrow_type), bound_token(statistics.max, arrow_type)]
                print(group, column, statistics.null_count, *bounds)
    else:
        raise SystemExit("reader must be pyarrow, duckdb, polars or statistics")


if __name__ == "__main__":
    main()
