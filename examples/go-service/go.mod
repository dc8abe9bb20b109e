module github.com/acldump/acldump-go/examples/go-service

go 1.19

require github.com/acldump/acldump-go v0.0.0

// The module in this repository (bindings/go; its SWIG and generated files come from Bazel, so
// go.sh lays the two out side by side before building).
replace github.com/acldump/acldump-go => ../../bindings/go
