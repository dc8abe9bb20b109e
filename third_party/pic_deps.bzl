"""@pic_deps: position-independent static archives of abseil, protobuf, fmt and Highway.

Built by third_party/pic/build.sh from Debian's source packages of the installed versions (a few
minutes, once per output base; only the release targets in //dist need them). The released
libacldump links them in with their symbols hidden, so it needs none of their shared libraries.
"""

def _pic_deps_impl(ctx):
    script = ctx.path(ctx.attr._script)
    # What the archives were built from, for the record (build.sh fetches these versions).
    versions = ctx.execute(["dpkg-query", "-W", "-f=${Package} ${Version}\n"] + ctx.attr.packages)
    ctx.file("installed.txt", versions.stdout, executable = False)
    ctx.report_progress("building PIC archives of abseil, protobuf, fmt and Highway")
    result = ctx.execute(["bash", str(script), str(ctx.path("."))], timeout = 3600, quiet = False)
    if result.return_code != 0:
        fail("building the static archives for the release library failed:\n" + result.stderr)
    ctx.file("BUILD", """
# Static PIC archives for //dist's release library (see third_party/pic/build.sh).
filegroup(
    name = "archives",
    srcs = glob(["lib/*.a"]),
    visibility = ["//visibility:public"],
)

# Highway alone: what the instruction-count gate links statically (bench/counts/BUILD).
filegroup(
    name = "hwy",
    srcs = ["lib/libhwy.a"],
    visibility = ["//visibility:public"],
)
""", executable = False)

pic_deps = repository_rule(
    implementation = _pic_deps_impl,
    attrs = {
        "packages": attr.string_list(
            default = ["libabsl-dev", "libprotobuf-dev", "libfmt-dev", "libhwy-dev"],
        ),
        "_script": attr.label(default = "//third_party/pic:build.sh"),
    },
    environ = ["PATH"],
)
