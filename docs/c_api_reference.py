#!/usr/bin/env python3
"""Writes docs/c-api-reference.md from the C headers, so that the reference says what the headers
say: every exported function with its declaration and the contract written above it (return codes,
ownership, thread safety), and the table of error codes.

    python3 docs/c_api_reference.py > docs/c-api-reference.md     # after changing a header
    python3 docs/c_api_reference.py --check docs/c-api-reference.md bindings/c/exported_symbols.txt

--check exits 1 when the committed file differs from what the headers give, or when an exported
symbol is missing from it.
"""

import os
import re
import sys

HEADERS = ["acl.h", "acl_base.h", "acl_rt.h", "acl_mdl.h", "acl_op.h", "acl_dump.h",
           "ops/acl_dvpp.h"]
INCLUDE = os.path.join("bindings", "c", "include", "acl")


def clean_comment(text):
    """The text of a /* ... */ comment, its lines joined into paragraphs."""
    body = text.strip()[2:-2]
    lines = [re.sub(r"^\s*\*\s?", "", line).rstrip() for line in body.split("\n")]
    paragraphs, current = [], []
    for line in lines:
        if not line.strip():
            if current:
                paragraphs.append(" ".join(current))
                current = []
        elif line.lstrip().startswith("- "):
            if current:
                paragraphs.append(" ".join(current))
            current = [line.strip()]
        else:
            current.append(line.strip())
    if current:
        paragraphs.append(" ".join(current))
    return paragraphs


def parse_header(path):
    """(intro paragraphs, [(section, notes, [(name, declaration, comment paragraphs)])]).

    A comment directly above a declaration (an ACL_DEPRECATED_MESSAGE may stand between them) is
    that function's, and also of the declarations written right after it, without a blank line
    (variants of one call). A comment that speaks of the functions "below" is a note of its
    section."""
    text = open(path, encoding="utf-8").read()
    tokens = re.finditer(r"/\*.*?\*/|^ACL_FUNC_VISIBILITY[^;]*;", text, re.S | re.M)
    intro, sections = None, []
    section = ("", [], [])
    sections.append(section)
    pending, pending_end, group, previous_end = None, -1, None, -1

    def between(start, end):
        return re.sub(r"ACL_DEPRECATED_MESSAGE\(\s*\"[^\"]*\"\s*\)", "", text[start:end])

    for token in tokens:
        t = token.group(0)
        if t.startswith("/*"):
            marker = re.match(r"/\*\s*-+\s*(.*?)\s*-+\s*\*/$", t, re.S)
            if intro is None:
                intro = clean_comment(t)
            elif marker:
                section = (marker.group(1), [], [])
                sections.append(section)
                pending, group = None, None
            elif re.search(r"\bbelow\b", t):
                section[1].extend(clean_comment(t))
                pending, group = None, None
            else:
                pending, pending_end = clean_comment(t), token.end()
        else:
            decl = " ".join(t.replace("ACL_FUNC_VISIBILITY", "").split())
            decl = re.sub(r"\(\s+", "(", decl).replace(" )", ")")
            name = re.search(r"(\w+)\s*\(", decl).group(1)
            if pending is not None and not between(pending_end, token.start()).strip():
                group = pending
            elif group is not None and previous_end >= 0:
                gap = between(previous_end, token.start())
                if gap.strip() or gap.count("\n") > 1:
                    group = None
            else:
                group = None
            pending, previous_end = None, token.end()
            section[2].append((name, decl, group))
    return intro or [], [s for s in sections if s[2]]


def error_codes(path):
    text = open(path, encoding="utf-8").read()
    return re.findall(r"^#define (ACL_SUCCESS|ACL_ERROR_\w+) (\d+)", text, re.M)


def render():
    out = [
        "# C API reference",
        "",
        "Every function of the stable C ABI (`bindings/c/include/acl/`), with the contract its",
        "header states: the codes it returns, ownership and thread safety. This page is written",
        "from the headers by `docs/c_api_reference.py`; `//docs:c_api_reference_test` fails when",
        "it is out of date or misses an exported symbol.",
        "",
    ]
    base_intro, _ = parse_header(os.path.join(INCLUDE, "acl_base.h"))
    out += ["## Conventions", ""]
    for p in base_intro:
        out += [p, ""]
    out += [
        "Where a function's entry below names no code for a failure, it follows these",
        "conventions: `ACL_ERROR_INVALID_PARAM` for a NULL or out-of-range argument,",
        "`ACL_ERROR_UNINITIALIZE` before `aclInit` for calls that need it, and the message of",
        "`aclGetRecentErrMsg` says what was wrong.",
        "",
        "## Error codes",
        "",
        "| Code | Value |",
        "|---|---|",
    ]
    for name, value in error_codes(os.path.join(INCLUDE, "acl_base.h")):
        out.append("| `%s` | %s |" % (name, value))
    out.append("")
    for header in HEADERS:
        intro, sections = parse_header(os.path.join(INCLUDE, header))
        if not sections:
            continue
        out += ["## `acl/%s`" % header, ""]
        for p in intro:
            out += [p, ""]
        for title, notes, functions in sections:
            if title:
                out += ["### %s" % title, ""]
            for p in notes:
                out += [p, ""]
            for name, decl, comment in functions:
                out += ["#### `%s`" % name, "", "```c", decl, "```", ""]
                if comment:
                    for p in comment:
                        out += [p, ""]
                else:
                    out += ["No contract of its own in the header: the conventions above and the",
                            "notes of its section apply.", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv):
    text = render()
    if len(argv) == 4 and argv[1] == "--check":
        committed = open(argv[2], encoding="utf-8").read()
        symbols = [s.strip() for s in open(argv[3], encoding="utf-8") if s.strip()]
        ok = True
        if committed != text:
            print("%s is out of date: run python3 docs/c_api_reference.py > %s" % (argv[2], argv[2]))
            ok = False
        missing = [s for s in symbols if "#### `%s`" % s not in committed]
        if missing:
            print("exported but not documented: " + ", ".join(missing))
            ok = False
        return 0 if ok else 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
