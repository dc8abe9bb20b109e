# Dump every operator of resnet_tiny for one run, then list what was written.
import json
import os
import tempfile

import numpy as np

import acldump

with tempfile.TemporaryDirectory() as work:
    config = os.path.join(work, "acl.json")
    with open(config, "w") as f:
        json.dump({"dump": {"dump_path": work, "dump_list": [{"model_name": "resnet_tiny"}]}}, f)

    with acldump.session(), acldump.dump_session(config):
        with acldump.Model("testdata/resnet_tiny.om") as model:
            image = np.random.rand(1, 3, 32, 32).astype(np.float32)
            fc, prob = model.run(image)
    print("prob", prob.shape, "sums to", round(float(prob.sum()), 3))

    try:
        with acldump.session(), acldump.dump_session(os.path.join(work, "missing.json")):
            pass
    except acldump.AclError as e:
        print("error", e.code, e.message)

    for root, _, files in sorted(os.walk(work)):
        if files and root != work:
            print(os.path.relpath(root, work), len(files), "files")
