"""Runs Debian's SWIG over //bindings/swig:acl.i for one target language."""

_SWIG = "/usr/bin/swig4.0"

def _cc_headers_impl(ctx):
    headers = ctx.attr.dep[CcInfo].compilation_context.headers
    return [DefaultInfo(files = headers, runfiles = ctx.runfiles(transitive_files = headers))]

cc_headers = rule(
    implementation = _cc_headers_impl,
    doc = "The headers of a cc_library, as files.",
    attrs = {"dep": attr.label(providers = [CcInfo])},
)

# The directory that holds acl/acl.h among the interface files (Bazel may move headers under
# _virtual_includes).
_C_INCLUDE_DIR = ("$$(for f in $(locations //bindings/swig:interface); do " +
                  "case $$f in */acl/acl.h) dirname $$(dirname $$f); break;; esac; done)")

# The directory of the generated acl_calls.i (under bazel-out).
_CALLS_DIR = ("$$(for f in $(locations //bindings/swig:interface); do " +
              "case $$f in */acl_calls.i) dirname $$f; break;; esac; done)")

def acl_swig(name, language, wrapper, outs = [], outdir = "", srcjar = None, swig_opts = []):
    """A genrule that writes the C wrapper `wrapper` and the target-language files.

    Args:
      name: the genrule's name.
      language: SWIG's language flag without the dash ("python", "java", "go").
      wrapper: the C wrapper file to write.
      outs: the other files SWIG writes, all into `outdir` (relative to this package).
      outdir: where those files go, relative to this package.
      srcjar: instead of `outs`, zip whatever SWIG writes (Java: one file per class) into this
        source jar, so the outputs stay declared however the interface grows.
      swig_opts: more SWIG flags.
    """
    # LP64: int64_t is long, as in the C headers.
    opts = " ".join(["-" + language, "-DSWIGWORDSIZE64"] + swig_opts)
    includes = "-Ibindings/swig -I" + _CALLS_DIR + " -I" + _C_INCLUDE_DIR
    if srcjar:
        cmd = ("tmp=$$(mktemp -d) && " +
               "%s %s %s -o $(location %s) -outdir $$tmp bindings/swig/acl.i && " +
               "/usr/bin/jar cf $(location %s) -C $$tmp . && rm -rf $$tmp") % (
            _SWIG,
            opts,
            includes,
            wrapper,
            srcjar,
        )
        all_outs = [wrapper, srcjar]
    else:
        target_dir = "$(RULEDIR)/" + outdir if outdir else "$(RULEDIR)"
        cmd = "mkdir -p %s && %s %s %s -o $(location %s) -outdir %s bindings/swig/acl.i" % (
            target_dir,
            _SWIG,
            opts,
            includes,
            wrapper,
            target_dir,
        )
        all_outs = [wrapper] + outs
    native.genrule(
        name = name,
        srcs = ["//bindings/swig:interface"],
        outs = all_outs,
        cmd = cmd,
    )
