"""The release version of acldump: the one place it is written.

aclrtGetVersion, the tools' --version, the SONAME, the symbol version node, the wheel, the jar and
the Go module all take it from here. Semantic versioning: MAJOR changes break the C ABI.
"""

ACLDUMP_VERSION = "1.0.0"

def _parts():
    parts = ACLDUMP_VERSION.split(".")
    if len(parts) != 3:
        fail("ACLDUMP_VERSION must be MAJOR.MINOR.PATCH, not %s" % ACLDUMP_VERSION)
    return parts

ACLDUMP_MAJOR = _parts()[0]
ACLDUMP_MINOR = _parts()[1]
ACLDUMP_PATCH = _parts()[2]

# The SONAME: consumers record it, so it changes only with the major version.
ACLDUMP_SONAME = "libacldump.so." + ACLDUMP_MAJOR
