"""Runs the dump tool's tasks on a dask.distributed cluster (`--scheduler`).

The tool embeds this file and starts it with Python; it submits the tasks a tasks file lists,
shows progress and lets Dask retry a task whose worker died. A task that still fails leaves
`<its output>.error` saying why. The task function travels by value (this file runs as
__main__), so workers need dask.distributed and the tool, nothing else of acldump.
"""

import argparse
import asyncio
import json
import os
import sys
import time
import uuid

# Exit codes (tools/cluster.cc reads them); apart from Python's own 1 (an uncaught error).
_ALL_DONE, _SOME_FAILED, _NO_RUN, _NO_DASK = 0, 10, 11, 12


def _run_task(argv, output, cwd):
    """One task on a worker, in the client's working directory: the tool writes `output` or the
    task fails with its message."""
    import os as _os
    import shutil as _shutil
    import subprocess as _subprocess
    if not _os.access(argv[0], _os.X_OK):  # installed elsewhere on this worker
        import sysconfig as _sysconfig
        wheel = _os.path.join(_sysconfig.get_paths()["scripts"], "acldump")
        local = (_os.environ.get("ACLDUMP_TOOL")
                 or (wheel if _os.access(wheel, _os.X_OK) else None)
                 or _shutil.which("acldump"))
        if local is None:
            raise RuntimeError("%s: no acldump tool on this worker (install the acldump wheel "
                               "or release, or set ACLDUMP_TOOL)" % argv[0])
        argv = [local] + list(argv[1:])
    # In the client's working directory when this worker has it (relative paths then mean the
    # same); else here, where absolute paths still do.
    cwd = cwd if cwd and _os.path.isdir(cwd) else None
    proc = _subprocess.run(argv, stdout=_subprocess.DEVNULL, stderr=_subprocess.PIPE, text=True,
                           errors="replace", cwd=cwd)
    if proc.returncode != 0 or not _os.path.isfile(output):
        raise RuntimeError("exit %d: %s" % (proc.returncode,
                                            proc.stderr.strip()[-2000:] or "(no message)"))
    return output


class _Progress:
    def __init__(self, label, total):
        self.label, self.total, self.done, self.failed = label, total, 0, 0
        self.tty = sys.stderr.isatty()
        self.shown = -1

    def step(self, failed):
        self.done += 1
        self.failed += failed
        percent = 100 * self.done // max(1, self.total)
        if self.tty or percent // 10 != self.shown // 10 or self.done == self.total:
            self.shown = percent
            line = "%s: %d/%d tasks (%d%%)%s" % (self.label, self.done, self.total, percent,
                                                ", %d failed" % self.failed if self.failed else "")
            sys.stderr.write(("\r" + line) if self.tty else line + "\n")
            if self.tty and self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def run_tasks(scheduler, tasks_path, retries=2, timeout=None):
    """Runs the tasks of a tasks file on the scheduler; returns the runner's exit code."""
    try:
        from distributed import Client, wait
    except ImportError:  # the tool tries another Python, then says so
        return _NO_DASK
    with open(tasks_path, encoding="utf-8") as f:
        spec = json.load(f)
    tasks = spec["tasks"]
    if timeout is None:  # seconds to reach the scheduler, and to wait for a worker
        timeout = float(os.environ.get("ACLDUMP_SCHEDULER_TIMEOUT", "30"))
    try:
        client = Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as error:
        sys.stderr.write("cannot reach the scheduler at %s: %s (give its address as "
                         "tcp://host:port)\n" % (scheduler, error))
        return _NO_RUN
    label = spec.get("label", "tasks")
    progress = _Progress(label, len(tasks))
    run = uuid.uuid4().hex[:8]
    started = time.monotonic()
    with client:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (TimeoutError, asyncio.TimeoutError):
            sys.stderr.write("the scheduler at %s has no workers (waited %g s): start one "
                             "(dask worker %s), or wait longer with ACLDUMP_SCHEDULER_TIMEOUT\n"
                             % (scheduler, timeout, scheduler))
            return _NO_RUN
        workers = len(client.scheduler_info().get("workers", {}))
        futures = {}
        for i, task in enumerate(tasks):
            future = client.submit(_run_task, task["argv"], task["output"], spec.get("cwd"),
                                   pure=False,
                                   retries=retries, key="acldump-%s-%s-%d" % (run, spec.get(
                                       "label", "task").replace(" ", "-"), i))
            futures[future] = task
        pending = set(futures)
        alone_since = None  # when the scheduler was last seen without workers
        while pending:
            try:
                done, pending = wait(list(pending), timeout=1.0, return_when="FIRST_COMPLETED")
                pending = set(pending)
            except (TimeoutError, asyncio.TimeoutError):
                done = ()
            for future in done:
                task = futures[future]
                failed = future.status != "finished"
                if failed:
                    error = future.exception() if future.status == "error" else None
                    why = ("%s: %s" % (type(error).__name__, error) if error is not None
                           else "the task was %s" % future.status)
                    with open(task["output"] + ".error", "w", encoding="utf-8") as f:
                        f.write(why + "\n")
                progress.step(failed)
            # Every wait is bounded: tasks nobody can run are reported, not waited for.
            if pending and not client.scheduler_info().get("workers"):
                alone_since = alone_since or time.monotonic()
                if time.monotonic() - alone_since > timeout:
                    sys.stderr.write("the scheduler at %s lost its workers: %d of %d tasks did "
                                     "not run (waited %g s for a worker; "
                                     "ACLDUMP_SCHEDULER_TIMEOUT)\n"
                                     % (scheduler, len(pending), len(tasks), timeout))
                    return _NO_RUN
            else:
                alone_since = None
        sys.stderr.write("%s: %d tasks in %.1f s on %d workers\n"
                         % (label, len(tasks), time.monotonic() - started, workers))
    return _SOME_FAILED if progress.failed else _ALL_DONE


def main(argv=None):
    parser = argparse.ArgumentParser(description="run a tasks file of the dump tool on a cluster")
    parser.add_argument("--scheduler", required=True, help="tcp://host:8786")
    parser.add_argument("--tasks", required=True, help="the tasks file the tool wrote")
    parser.add_argument("--retries", type=int, default=2)
    args = parser.parse_args(argv)
    return run_tasks(args.scheduler, args.tasks, retries=args.retries)


if __name__ == "__main__":
    sys.exit(main())
