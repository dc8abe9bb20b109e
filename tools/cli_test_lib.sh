# Assertions shared by the CLI's shell tests (sourced, not run). Failures are
# counted in $failures; each test reports them and exits non-zero at its end.
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# expect_exit CODE NAME -- command...: runs it with stdout/stderr in NAME.out/.err.
expect_exit() {
  local code="$1" name="$2"
  shift 3
  local rc=0
  "$@" >"$name.out" 2>"$name.err" || rc=$?
  if [[ "$rc" != "$code" ]]; then
    fail "$name: exit $rc, expected $code: $*"
    sed 's/^/    /' "$name.out" "$name.err" >&2
  fi
}
expect_grep() {  # expect_grep FILE PATTERN (fixed string)
  grep -qF -- "$2" "$1" || {
    fail "$1 lacks '$2'"
    sed 's/^/    /' "$1" >&2
  }
}
expect_no_grep() {
  if grep -qF -- "$2" "$1"; then fail "$1 has '$2'"; fi
}
# json FILE EXPR: prints the Python expression EXPR over the parsed JSON `j`.
json() {
  /usr/bin/python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
    "$1" "$2"
}
expect_json() {  # expect_json FILE EXPR VALUE
  local got
  got=$(json "$1" "$2") || got="(not JSON)"
  [[ "$got" == "$3" ]] || fail "$1: $2 is '$got', expected '$3'"
}
