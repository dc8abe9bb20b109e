#!/bin/sh
# The README's C example, built by Bazel against libacldump.so: run it on the testdata model with
# a config dumping one layer, check the file landed, and check the README shows this very file.
set -eu
example="$1"; model="$2"; readme="$3"; source_file="$4"
out="$TEST_TMPDIR/out"
mkdir -p "$out"
printf '{"dump":{"dump_path":"%s","dump_list":[{"model_name":"resnet_tiny","layer":["prob"]}]}}' \
  "$out" > "$TEST_TMPDIR/acl.json"
"$example" "$model" "$TEST_TMPDIR/acl.json" | grep -q '^done$'
count=$(find "$out" -type f -name 'Softmax.prob.13.0.*' | wc -l)
[ "$count" -eq 1 ] || { echo "expected 1 prob dump, found $count" >&2; exit 1; }
# The README embeds the example between the markers; it must not drift from the source.
sed -n '/<!-- c-example-begin -->/,/<!-- c-example-end -->/p' "$readme" | sed '1,2d;$d' | sed '$d' \
  > "$TEST_TMPDIR/readme_example.c"
if ! diff -u "$source_file" "$TEST_TMPDIR/readme_example.c"; then
  echo "README.md's C example differs from bindings/c/examples/dump_layers.c" >&2
  exit 1
fi
echo "C example ran and matches the README"
