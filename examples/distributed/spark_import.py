#!/usr/bin/env python3
"""Import one large JSON file with Spark: one `sluice import --shard` task per shard of `sluice split`.

    python spark_import.py dump.json -m tweets.mapping.yaml --parts 16 --out parts/ [--kind parquet]
    python spark_import.py dump.json -m m.yaml --parts 64 --out parts/ --master spark://host:7077

The same recipe as dask_import.py (the same parts, rejections and summaries; sluice_shards.py): the driver splits
the file, then `parallelize(shards).map(import_shard)` runs one task per shard. The records never pass through
the JVM: each task runs sluice on its shard's bytes (feeding records through `rdd.pipe` starves the parser).

Without --master, Spark runs in local mode with --executors task slots and --retries more attempts per task. With
a real cluster, the input, the plan and OUT must be at the same paths on every machine, and `sluice` on each
machine's PATH (or --sluice).

Exit status: 0 every record written; 2 finished, some records rejected; 1 the split or a shard failed.
"""

import os
import sys

import sluice_shards


def main(argv):
    parser = sluice_shards.argument_parser("Spark")
    parser.add_argument("--master", help="a Spark master URL (default: local mode)")
    parser.add_argument("--executors", type=int, default=os.cpu_count() or 1,
                        help="task slots in local mode (default: the cores)")
    arguments = sluice_shards.parse_arguments(parser, argv)
    # Imported here, so that --help works without pyspark installed.
    SparkSession = sluice_shards.require("pyspark.sql", "pip install pyspark (it needs Java 17)").SparkSession
    out, plan_path, started, splitting = sluice_shards.start(arguments, arguments.executors)
    settings = sluice_shards.settings(arguments, plan_path, out)
    # Local mode retries a task only when told how often in the master URL.
    master = arguments.master or f"local[{arguments.executors},{arguments.retries + 1}]"
    session = (SparkSession.builder.master(master).appName("sluice import")
               .config("spark.task.maxFailures", str(arguments.retries + 1))
               .config("spark.ui.enabled", "false").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    try:
        # The executors' Python gets the task's module from the driver.
        session.sparkContext.addPyFile(sluice_shards.__file__)
        plan = sluice_shards.finish_split(splitting, plan_path)
        if plan is None:
            return 1
        tasks = [(index, shard["records"]) for index, shard in enumerate(plan["shards"])]
        try:
            summaries = (session.sparkContext.parallelize(tasks, len(tasks))
                         .map(lambda task: sluice_shards.import_shard(task[0], task[1], settings)).collect())
        except Exception as error:
            # Spark wraps the task's error in a Java stack trace: the line that names the shard says what failed.
            lines = str(error).splitlines()
            cause = next((line for line in lines if "RuntimeError: shard" in line), lines[0] if lines else repr(error))
            print(f"spark_import: {cause.strip()}", file=sys.stderr)
            return 1
    finally:
        session.stop()
    return sluice_shards.finish(summaries, plan, started, arguments, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
