#!/usr/bin/env bash
# Runs every fuzzer for a bounded time on its committed corpus plus the testdata seeds.
# Usage (from `bazel run --config=fuzz //fuzz:run_fuzzers -- [SECONDS]`): the name:binary pairs
# come from the BUILD file, SECONDS (default 30) from the user. A crash stops the run, is copied
# into testdata/fuzz/<name>/ of the workspace and the script exits 1.
set -euo pipefail
pairs=()
seconds=30
for arg in "$@"; do
  case "$arg" in
    *:*) pairs+=("$arg") ;;
    *) seconds="$arg" ;;
  esac
done
declare -A seeds=(
  [config]="testdata/configs"
  [model]="bazel-out testdata/fuzz/model"
  [onnx]="testdata"
  [dump_file]="testdata/fuzz/dump_file"
  [stats_csv]="testdata/fuzz/stats_csv"
  [npy]="testdata"
  [pack]="testdata/fuzz/pack"
  [cluster]="testdata/fuzz/cluster"
  [image_header]="testdata/images"
)
# A fuzzer without an entry here still runs on its own corpus, testdata/fuzz/<name>/.
declare -A patterns=([config]='*.json' [model]='*.om' [onnx]='*.onnx' [dump_file]='*' [stats_csv]='*' [npy]='*.npy' [pack]='*' [cluster]='*' [image_header]='*')
workspace="${BUILD_WORKSPACE_DIRECTORY:-}"
status=0
for pair in "${pairs[@]}"; do
  name="${pair%%:*}"
  binary="${pair#*:}"
  corpus=$(mktemp -d "${TMPDIR:-/tmp}/acldump-fuzz-$name.XXXXXX")
  for source in ${seeds[$name]:-} "testdata/fuzz/$name"; do
    [ -e "$source" ] || continue
    find -L "$source" -type f -name "${patterns[$name]:-*}" ! -name README -exec cp {} "$corpus/" \; 2>/dev/null || true
  done
  find -L "testdata/fuzz/$name" -type f ! -name README -exec cp {} "$corpus/" \; 2>/dev/null || true
  artifacts=$(mktemp -d "${TMPDIR:-/tmp}/acldump-fuzz-$name-crashes.XXXXXX")
  echo "== $name: $(ls "$corpus" | wc -l) seed inputs, ${seconds}s"
  failed=0
  if ! "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$corpus" > "$artifacts/log" 2>&1; then
    status=1
    failed=1
    echo "!! $name found a failure (log and inputs in $artifacts):"
    grep -E "ERROR|SUMMARY|==[0-9]+==" "$artifacts/log" | head -20 || true
    if [ -n "$workspace" ]; then
      for crash in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
        [ -e "$crash" ] || continue
        cp "$crash" "$workspace/testdata/fuzz/$name/"
        echo "   reproducer committed-to-be: testdata/fuzz/$name/$(basename "$crash")"
      done
    fi
  fi
  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|cov: " "$artifacts/log" | tail -3 | sed "s/^/   /" || true
  echo "   corpus now $(ls "$corpus" | wc -l) inputs"
  rm -rf "$corpus"
  # A clean run leaves nothing behind; a failing one keeps its log and reproducers.
  [ "$failed" = 1 ] || rm -rf "$artifacts"
done
exit $status
