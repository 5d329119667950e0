"""serve_demo on a busy port says so before printing any "ready" line, and exits 1."""

from __future__ import annotations

import socket
import subprocess
import sys

from tests.conftest import REPO


def test_busy_port_is_named_before_anything_is_printed(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        run = subprocess.run(
            [sys.executable, "manage.py", "serve_demo", "--addr", f"127.0.0.1:{port}"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "GIBSON_DATA_DIR": str(tmp_path)},
        )
    assert run.returncode == 1
    assert "ready" not in run.stdout
    assert f"cannot serve on 127.0.0.1:{port}" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "gibson.sqlite3").exists()  # nothing set up either
