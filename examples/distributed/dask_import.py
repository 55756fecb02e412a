#!/usr/bin/env python3
"""Import one large JSON file on a Dask cluster: one `sluice import --shard` task per shard of `sluice split`.

    python dask_import.py dump.json -m tweets.mapping.yaml --parts 16 --out parts/ [--kind parquet]
    python dask_import.py dump.json -m m.yaml --records-at data --parts 64 --out parts/ --scheduler tcp://host:8786

The driver splits the file (`sluice split`, one scan, while the cluster starts), then maps each shard to a task
that imports it into a part of its own (sluice_shards.py):

    OUT/plan.json                       the split
    OUT/part-00017.<kind>               shard 17's rows (NDJSON, Parquet, SQLite or CSV)
    OUT/part-00017.<table>.<kind>       or, with child tables (or several mappings), a file per table
    OUT/part-00017.rejects.ndjson       shard 17's rejected records
    OUT/part-00017.summary.json         shard 17's summary
    OUT/summary.json                    the shards' summaries added up (child tables' rows too)

Ordinals, lines and byte offsets in the parts are the whole file's, so the parts in shard order are one import of
the file. A task that fails, or whose worker process dies, is run again, and replaces its part.

Without --scheduler the script starts a LocalCluster of --processes worker processes, one thread each. With a
real cluster, the input, the plan and OUT must be at the same paths on every machine (a shared file system), and
`sluice` on each machine's PATH (or --sluice).

Exit status: 0 every record written; 2 finished, some records rejected; 1 the split or a shard failed (after its
retries).
"""

import os
import shutil
import uuid
import sys
import tempfile

import sluice_shards


def argument_parser():
    parser = sluice_shards.argument_parser("a Dask cluster")
    parser.add_argument("--scheduler", help="a running Dask scheduler's address (default: a LocalCluster)")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1,
                        help="worker processes of the LocalCluster (default: the cores)")
    return parser


def main(argv):
    arguments = sluice_shards.parse_arguments(argument_parser(), argv)
    sluice_shards.require("dask.distributed", "pip install 'dask[distributed]'")
    out, plan_path, started, splitting = sluice_shards.start(arguments, arguments.processes)
    try:
        return run_on_cluster(arguments, splitting, plan_path, out, started)
    finally:
        stop_split(splitting)


def import_file(client, argv):
    """Runs the recipe on the client of a driver that holds one already (a notebook, a long-running service), with
    the command line's options (--scheduler and --processes aside): such a run pays no Python start, import of Dask
    or connection. Returns the exit status (1 also for wrong options, which the command line ends with 2)."""
    try:
        arguments = sluice_shards.parse_arguments(argument_parser(), argv)
        # Task slots, as the cluster has them now (scheduler_info() lists only some workers of a large cluster).
        workers = sum(client.nthreads().values()) or 1
        out, plan_path, started, splitting = sluice_shards.start(arguments, workers)
    except SystemExit as stop:
        # Wrong options, or no sluice: said on standard error already, or in the exit's message. The caller's
        # process goes on.
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
        return 0 if stop.code in (0, None) else 1
    try:
        return run_tasks(client, arguments, splitting, plan_path, out, started)
    finally:
        stop_split(splitting)


def stop_split(splitting):
    # A cluster that did not start, or a run that failed, leaves the split nobody waits for.
    if splitting.poll() is None:
        splitting.kill()
        splitting.wait()


def run_on_cluster(arguments, splitting, plan_path, out, started):
    # Imported here, so that --help works without Dask installed.
    import dask
    from dask.distributed import Client, LocalCluster

    scratch = None
    if arguments.scheduler is not None:
        cluster = None
        try:
            client = Client(arguments.scheduler, timeout=20)
        except OSError as error:
            print(f"dask_import: cannot reach the scheduler at {arguments.scheduler}: {error}", file=sys.stderr)
            return 1
    else:
        # The workers' scratch space goes away with the cluster (Dask would leave it in the temporary directory).
        scratch = tempfile.mkdtemp(prefix="sluice-dask-")
        dask.config.set({"temporary-directory": scratch})
        try:
            cluster = LocalCluster(n_workers=arguments.processes, threads_per_worker=1, processes=True,
                                   dashboard_address=None, local_directory=scratch)
            client = Client(cluster)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
    try:
        return run_tasks(client, arguments, splitting, plan_path, out, started)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def run_tasks(client, arguments, splitting, plan_path, out, started):
    """Waits for the split, runs a task per shard on the client's cluster, and adds up the tasks' summaries."""
    settings = sluice_shards.settings(arguments, plan_path, out)
    # The scheduler and the workers get the tasks' module from here: it need not be installed where they run.
    client.upload_file(sluice_shards.__file__)
    plan = sluice_shards.finish_split(splitting, plan_path)
    if plan is None:
        return 1
    # A task is a run with effects, never a cached value: its key names the shard, for the logs, and this
    # run, so that another driver on the same scheduler never gets this run's results or gives it its own.
    run = uuid.uuid4().hex[:12]
    futures = [client.submit(sluice_shards.import_shard, index, shard["records"], settings,
                             retries=arguments.retries, key=f"sluice-shard-{index:05d}-{run}")
               for index, shard in enumerate(plan["shards"])]
    try:
        summaries = client.gather(futures)
    except Exception as error:
        # The other shards' tasks must not go on writing parts into OUT, which a next run clears first.
        client.cancel(futures)
        print(f"dask_import: {error}", file=sys.stderr)
        return 1
    return sluice_shards.finish(summaries, plan, started, arguments, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
