package acl

// The C compiler and linker flags of the whole package (SWIG's acl.go and acl_wrap.c): from
// `pkg-config acldump`, i.e. the SDK's lib/pkgconfig/acldump.pc on PKG_CONFIG_PATH.

// #cgo pkg-config: acldump
import "C"
