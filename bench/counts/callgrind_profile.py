"""Reads callgrind's output files: the total and each function's own (exclusive) instructions."""
import collections
import os
import re

_RECURSION = re.compile(r"'\d+$")
_ADDRESS = re.compile(r"^0x[0-9a-f]+$")
_TRIGGER = "desc: Trigger: Client Request: "


class Profile:
    """One callgrind dump: the measured region named `name` (the client request's string)."""

    def __init__(self, name, total, functions, calls):
        self.name = name
        self.total = total
        self.functions = functions  # name -> exclusive instructions
        self.calls = calls  # (caller, callee) -> [calls, inclusive instructions]


def _resolve(spec, names):
    """Callgrind compresses names: "(12) name" defines id 12, "(12)" refers to it."""
    spec = spec.strip()
    if spec.startswith("("):
        end = spec.find(")")
        key, rest = spec[1:end], spec[end + 1:].strip()
        if rest:
            names[key] = rest
        return names.get(key, f"(unnamed {key})")
    return spec


def _named(function, obj):
    """Code without a symbol is named by its address, which moves from binary to binary and
    from run to run for code generated at run time: name it by its object instead."""
    if not _ADDRESS.match(function):
        return function
    if not obj or obj == "???":
        return "(code generated at run time: oneDNN's kernels)"
    return f"(code without symbols in {os.path.basename(obj)})"


def read(path):
    """The Profile of one callgrind output file (one dump)."""
    names, files, objects = {}, {}, {}
    obj = callee_obj = None
    functions = collections.Counter()
    calls = {}
    name = None
    total = None
    function = None
    callee = None
    call = None  # set by `calls=`: the next cost line is that call's inclusive cost
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            first = line[:1]
            if first.isdigit() or first in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if call is not None:
                    entry = calls.setdefault((function, callee), [0, 0])
                    entry[0] += call
                    entry[1] += cost
                    call = None
                elif function is not None:
                    functions[function] += cost
                continue
            if line.startswith("fn="):
                function = _named(_RECURSION.sub("", _resolve(line[3:], names)), obj)
                callee_obj = obj
                call = None
            elif line.startswith("calls="):
                call = int(line[6:].split()[0])
            elif line.startswith("cfn="):
                callee = _named(_RECURSION.sub("", _resolve(line[4:], names)), callee_obj)
                callee_obj = obj
            elif line.startswith("ob="):
                obj = callee_obj = _resolve(line[3:], objects)
            elif line.startswith("cob="):
                callee_obj = _resolve(line[4:], objects)
            elif line.startswith(("fl=", "fi=", "fe=", "cfi=", "cfl=")):
                _resolve(line.split("=", 1)[1], files)
            elif line.startswith(_TRIGGER):
                name = line[len(_TRIGGER):].strip()
            elif line.startswith("totals:"):
                total = int(line.split()[1])
            elif line.startswith("summary:") and total is None:
                total = int(line.split()[1])
    if total is None:
        total = sum(functions.values())
    return Profile(name, total, dict(functions), calls)


# glibc's allocator: its entry points, and the functions only it calls.
ALLOCATOR_ENTRIES = frozenset({
    "malloc", "free", "calloc", "realloc", "reallocarray", "memalign", "posix_memalign",
    "aligned_alloc", "valloc", "pvalloc", "cfree"})
_ALLOCATOR_INTERNALS = ALLOCATOR_ENTRIES | frozenset({
    "_int_malloc", "_int_free", "_int_memalign", "_mid_memalign", "_int_realloc",
    "malloc_consolidate", "unlink_chunk", "alloc_perturb", "sysmalloc", "systrim",
    "tcache_init", "ptmalloc_init", "malloc_hook_ini", "arena_get2", "get_free_list",
    "new_heap", "alloc_new_heap", "shrink_heap", "heap_trim", "munmap_chunk", "mremap_chunk",
    "_int_free_merge_chunk", "_int_free_create_chunk", "_int_free_maybe_consolidate",
    "tcache_get", "tcache_put", "checked_request2size", "__libc_malloc", "__libc_free",
    "__libc_calloc", "__libc_realloc", "__libc_memalign", "__posix_memalign"})
_CLONE_SUFFIX = re.compile(r"(\.(constprop|isra|part|cold|lto_priv)\.\d+)+$")
# What one allocator call counts as in a normalized profile.
ALLOCATOR_CALL_WEIGHT = 50


def is_allocator(function):
    return _CLONE_SUFFIX.sub("", function.split("@")[0]) in _ALLOCATOR_INTERNALS


def normalize_allocator(profile, weight=ALLOCATOR_CALL_WEIGHT):
    """The profile with every allocator call counted as `weight` instructions.

    What glibc's allocator executes depends on the state of its arenas, which other threads
    change when they free memory this thread allocated (the dump writer does), so its counts
    differ from run to run. How often the measured code calls it does not: each call from
    outside the allocator replaces its inclusive cost, and the allocator's own functions make
    way for one row per entry point ("malloc (calls x 50)").
    """
    total = profile.total
    calls_per_entry = collections.Counter()
    for (caller, callee), (count, inclusive) in profile.calls.items():
        if callee in ALLOCATOR_ENTRIES and not is_allocator(caller or ""):
            total += weight * count - inclusive
            calls_per_entry[callee] += count
    functions = {f: c for f, c in profile.functions.items() if not is_allocator(f)}
    for entry, count in calls_per_entry.items():
        functions[f"{entry} (calls x {weight})"] = weight * count
    calls = {k: v for k, v in profile.calls.items() if not is_allocator(k[0] or "")}
    return Profile(profile.name, total, functions, calls)
