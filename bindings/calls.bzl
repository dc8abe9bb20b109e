"""Runs bindings/gen_bindings.py over the table (bindings/calls.py) and the C headers."""

def acl_calls(name, outs, args, srcs = []):
    """A genrule writing `outs` from the table.

    Args:
      name: the genrule's name.
      outs: the files written.
      args: gen_bindings.py's arguments saying what to write ($(location) works).
      srcs: more inputs (a template).
    """
    native.genrule(
        name = name,
        srcs = ["//bindings:calls.py", "//bindings/swig:c_headers"] + srcs,
        outs = outs,
        cmd = ("$(location //bindings:gen_bindings) --table $(location //bindings:calls.py) " +
               "$$(for h in $(locations //bindings/swig:c_headers); do echo --header $$h; done) " +
               args),
        tools = ["//bindings:gen_bindings"],
    )
