"""Execute a notebook cell by cell, streaming each cell's output as it comes:
``python -u notebook_exec.py train.ipynb [args...]``.

Stream output goes to stdout/stderr as printed; a cell's result and display data as their text;
a cell that raises ends the run with exit code 1 and its traceback on stderr. The kernel is the
Python that runs this file (the job's environment), a child of this process (so it runs in the
same sandbox), and it inherits ``SAMPAN_RUN_EVENTS_FD``/``SAMPAN_RUN_REPLY_FD`` so ``sampan.run``
works from a cell. The executed notebook is written to ``$SAMPAN_OUTPUT_DIR/<name>.executed.ipynb``.
Command-line arguments after the notebook are left in ``SAMPAN_NOTEBOOK_ARGV`` (JSON).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def _print_output(out: dict[str, Any]) -> None:
    kind = out.get("output_type")
    if kind == "stream":
        stream = sys.stderr if out.get("name") == "stderr" else sys.stdout
        stream.write(out.get("text", ""))
        stream.flush()
    elif kind in ("execute_result", "display_data"):
        text = out.get("data", {}).get("text/plain")
        if text:
            sys.stdout.write((text if isinstance(text, str) else "".join(text)).rstrip("\n") + "\n")
            sys.stdout.flush()


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("usage: notebook_exec.py NOTEBOOK.ipynb [args...]\n")
        return 2
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    class StreamingClient(NotebookClient):
        def output(self, outs: Any, msg: Any, display_id: Any, cell_index: int) -> Any:
            out = super().output(outs, msg, display_id, cell_index)
            if out is not None:
                _print_output(out)
            return out

    path = Path(argv[0])
    os.environ["SAMPAN_NOTEBOOK_ARGV"] = json.dumps(argv[1:])
    try:
        notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    except Exception as exc:  # noqa: BLE001 - any unreadable notebook is the user's input
        sys.stderr.write(f"cannot read the notebook {path}: {exc}\n")
        return 2
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    pass_fds = tuple(
        int(os.environ[name])
        for name in ("SAMPAN_RUN_EVENTS_FD", "SAMPAN_RUN_REPLY_FD")
        if os.environ.get(name, "").isdigit()
    )
    client = StreamingClient(
        notebook,
        timeout=None,
        kernel_name="python3",
        allow_errors=False,
        # the kernel's own log (e.g. "running over TCP without encryption": it listens on the
        # sandbox's loopback) is not the user's output
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    code = 0
    try:
        client.execute(pass_fds=pass_fds) if pass_fds else client.execute()
    except CellExecutionError as exc:
        sys.stdout.flush()
        sys.stderr.write(f"{exc}\n")
        code = 1
    finally:
        output_dir = os.environ.get("SAMPAN_OUTPUT_DIR")
        if output_dir and Path(output_dir).is_dir():
            try:
                executed = Path(output_dir, f"{path.stem}.executed.ipynb")
                nbformat.write(notebook, executed)  # type: ignore[no-untyped-call]
            except OSError as exc:
                sys.stderr.write(f"could not save the executed notebook: {exc}\n")
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
