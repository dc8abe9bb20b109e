package acldump_test

import (
	"testing"

	acldump "github.com/acldump/acldump-go"
	"github.com/acldump/acldump-go/acl"
)

// The functions generated from bindings/calls.py's rows, beyond what the other tests exercise.

func TestSocNameNeedsNoInitAndIsTheHostCPUs(t *testing.T) {
	if got := acldump.SocName(); got != "acldump_cpu" {
		t.Fatalf("SocName() = %q", got)
	}
	if got := acl.AclrtGetSocName(); got != acldump.SocName() {
		t.Fatalf("acl.AclrtGetSocName() = %q, SocName() = %q", got, acldump.SocName())
	}
	// A failure with a message before does not change it (the call cannot fail).
	if err := acldump.Init("/nonexistent/acl.json"); aclCode(err) != acl.ACL_ERROR_INVALID_FILE {
		t.Fatalf("Init of a missing file: %v", err)
	}
	if got := acldump.SocName(); got != "acldump_cpu" {
		t.Fatalf("SocName() after a failure = %q", got)
	}
}
