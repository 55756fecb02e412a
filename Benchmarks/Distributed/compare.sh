#!/usr/bin/env bash
# One interleaved run: `sluice import --workers W` of a file against the Dask recipe with W worker processes of one
# thread each, into Parquet: once starting its own LocalCluster (dask), once on a scheduler and workers started
# before the timing (dask-running, as on a cluster that is up already); and the Spark recipe, when SPARK_PYTHON names
# a Python with pyspark. Then, on the same cluster, warm_driver.py times the recipe from a driver that is up already.
#
#   Benchmarks/Distributed/compare.sh FILE MAPPING [--repetitions 3] [--workers 2] [--parts N] [--records-at PATH]
#
# Prints each run's seconds and, per contender, the median and its ratio to the single import's median. Without
# --parts the recipes choose (one shard per 512 MiB, one to four per worker).
# Needs a release build (swift build -c release --product sluice) and scripts/python-env's Python.
set -euo pipefail
cd "$(dirname "$0")/../.."
file=$1 mapping=$2
shift 2
repetitions=3 workers=2 parts=() recordsAt=()
while [ $# -gt 0 ]; do
    case $1 in
        --repetitions) repetitions=$2; shift 2 ;;
        --workers) workers=$2; shift 2 ;;
        --parts) parts=(--parts "$2"); shift 2 ;;
        --records-at) recordsAt=(--records-at "$2"); shift 2 ;;
        *) echo "unknown option: $1" >&2; exit 64 ;;
    esac
done
sluice=$PWD/.build/release/sluice
python=$(scripts/python-env)
out=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
"${python%/python}/dask" scheduler --port "$port" --dashboard-address :0 >"$out/scheduler.log" 2>&1 &
cluster=($!)
for ((worker = 0; worker < workers; worker++)); do
    "${python%/python}/dask" worker "tcp://127.0.0.1:$port" --nthreads 1 --no-dashboard >"$out/worker-$worker.log" 2>&1 &
    cluster+=($!)
done
trap 'kill "${cluster[@]}" 2>/dev/null; wait; rm -rf "$out"' EXIT
# Timing starts once every worker has joined the scheduler.
"$python" -c 'import sys; from dask.distributed import Client; c = Client(sys.argv[1], timeout=60); c.wait_for_workers(int(sys.argv[2]), timeout=60); c.close()' \
    "tcp://127.0.0.1:$port" "$workers"
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>"$out/log" || { [ $? -eq 2 ] || { cat "$out/log" >&2; exit 1; }; }; end=$(date +%s.%N); echo "$end - $start" | bc; }
declare -A times
contenders=(single dask dask-running)
[ -n "${SPARK_PYTHON:-}" ] && contenders+=(spark)
for ((run = 1; run <= repetitions; run++)); do
    for contender in "${contenders[@]}"; do
        rm -rf "$out/parts" "$out/whole.parquet"
        case $contender in
            single) t=$(seconds "$sluice" import -m "$mapping" "$file" "${recordsAt[@]}" --workers "$workers" --to "$out/whole.parquet" --quiet) ;;
            dask) t=$(seconds "$python" examples/distributed/dask_import.py "$file" -m "$mapping" "${recordsAt[@]}" "${parts[@]}" \
                        --processes "$workers" --kind parquet --out "$out/parts" --sluice "$sluice") ;;
            dask-running) t=$(seconds "$python" examples/distributed/dask_import.py "$file" -m "$mapping" "${recordsAt[@]}" "${parts[@]}" \
                        --scheduler "tcp://127.0.0.1:$port" --processes "$workers" --kind parquet --out "$out/parts" --sluice "$sluice") ;;
            spark) t=$(seconds "$SPARK_PYTHON" examples/distributed/spark_import.py "$file" -m "$mapping" "${recordsAt[@]}" "${parts[@]}" \
                        --executors "$workers" --kind parquet --out "$out/parts" --sluice "$sluice") ;;
        esac
        echo "run $run: $contender $t s"
        times[$contender]+="$t "
    done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
base=$(echo "${times[single]}" | median)
bytes=$(stat -c %s "$file")
for contender in "${contenders[@]}"; do
    m=$(echo "${times[$contender]}" | median)
    printf '%-12s median %6.2f s  %6.0f MB/s  throughput vs single import %.2f\n' "$contender" "$m" "$(echo "$bytes / $m / 1000000" | bc -l)" "$(echo "$base / $m" | bc -l)"
done
echo "from a driver that is up already:"
"$python" Benchmarks/Distributed/warm_driver.py "$file" "$mapping" --scheduler "tcp://127.0.0.1:$port" --sluice "$sluice" \
    --repetitions "$repetitions" --workers "$workers" "${parts[@]}" "${recordsAt[@]}" 2>"$out/log" || { cat "$out/log" >&2; exit 1; }
