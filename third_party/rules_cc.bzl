"""Debian's rules_cc (bazel-rules-cc 0.0.4), adapted for Bazel 4.2.3.

Two files load `use_cpp_toolchain` from @bazel_tools, which Bazel 4.2.3 lacks; we copy the
Debian tree and replace that call with the toolchain type label it stands for.
"""

_PATCHED = [
    "cc/private/rules_impl/cc_flags_supplier.bzl",
    "cc/private/rules_impl/compiler_flag.bzl",
]

def _debian_rules_cc_impl(ctx):
    src = ctx.path(ctx.attr.path)
    if not src.exists:
        fail("rules_cc: %s is missing; install Debian's bazel-rules-cc (./bazelw does)" % src)
    result = ctx.execute(["cp", "-r", "%s/." % src, "."])
    if result.return_code != 0:
        fail("rules_cc: copying %s failed: %s" % (src, result.stderr))
    for rel in _PATCHED:
        text = ctx.read(rel)
        text = text.replace(', "use_cpp_toolchain")', ")")
        text = text.replace("use_cpp_toolchain()", '["@bazel_tools//tools/cpp:toolchain_type"]')
        ctx.file(rel, text, executable = False)

debian_rules_cc = repository_rule(
    implementation = _debian_rules_cc_impl,
    attrs = {"path": attr.string(default = "/usr/share/bazel/rules/cc")},
    local = True,
)
