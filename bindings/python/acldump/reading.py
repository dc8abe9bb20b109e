"""Reading dumps in Python: dump files, dump trees and comparisons, with numpy.

    import acldump
    f = acldump.read_dump("dump/20250101120000/0/resnet_tiny/1/0/Conv.conv1bn1relu1.1.0.17...")
    f.op_name, f.outputs[0].array.shape

    tree = acldump.open_tree("dump")            # an index of a dump tree
    for folder in tree.folders:                  # one per model / model id / iteration / device
        print(folder.model, folder.iteration, [e.op_name for e in folder.files])

    result = acldump.compare("run_a", "run_b", atol=1e-3)   # what `dump compare --json` writes
    result["verdict"], result["first_divergence"]

The modules behind it: dump_files (the format), packs (the packed layout), trees (dump
trees), compare_metrics, compare_sides and comparing (compare). They read files only: they need
numpy, not libacldump.so. Its results are those of the
`dump` tool (the tests check `compare` against `dump compare --json`): the same folders and
operators paired, the same verdicts, counts, indices and notes; metric values are computed in the
same order with the same float64 operations.
"""

# The public names; the others are imported for the tools and tests that used them here.
from acldump.comparing import compare  # noqa: F401
from acldump.dump_files import DumpFile, DumpFormatError, DumpTensor, data_type_name  # noqa: F401
from acldump.packs import (read_dump, read_pack, split_merged_stats,  # noqa: F401
                           why_not_a_file_name, why_not_a_record_name)
from acldump.trees import DumpTree, Entry, Folder, open_tree  # noqa: F401

__all__ = [
    "DumpFile", "DumpTree", "DumpTensor", "Entry", "Folder", "compare", "open_tree", "read_dump",
]
