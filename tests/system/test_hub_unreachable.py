"""Without ``HF_HUB_OFFLINE``, a model that is neither local nor reachable fails within seconds, with the clear error.

The hub is ``HF_ENDPOINT`` on a closed port of 127.0.0.1: nothing leaves the machine. Before the fix, transformers'
retries took about 50 s to reach the same error.
"""

import json
import os
import subprocess
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from companion import encoders
from companion.encoders import loading

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_loading_an_unreachable_model_fails_at_once(tmp_path, closed_port):
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(PYTHONPATH=str(REPO), HF_ENDPOINT=f"http://127.0.0.1:{closed_port}", HF_HOME=str(tmp_path / "hf"),
               HF_HUB_DISABLE_TELEMETRY="1")
    code = (
        "import json\n"
        "from companion.encoders import ModelNotAvailableError, load_encoder\n"
        "try:\n"
        "    load_encoder('nobody-here/unroutable-model')\n"
        "    out = {'error': None}\n"
        "except ModelNotAvailableError as exc:\n"
        "    out = {'error': str(exc)}\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["error"] is not None, out
    assert "'nobody-here/unroutable-model' is not available" in out["error"]
    assert f"the hub at {env['HF_ENDPOINT']} did not answer" in out["error"] and "\n" not in out["error"]
    assert "Retrying" not in done.stderr  # no retry loop ran


def test_the_probe_is_one_short_request(monkeypatch, closed_port):
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed_port}")
    opened, urlopen = [], urllib.request.urlopen

    def counted(request, timeout=None, **kwargs):
        opened.append(timeout)
        return urlopen(request, timeout=timeout, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", counted)
    reason = encoders.hub_unreachable("org/model")
    assert reason and "refused" in reason.lower()
    assert opened == [loading.HUB_PROBE_TIMEOUT_S]  # one request, with the probe's short timeout


def test_any_answer_from_the_hub_counts_as_reachable(monkeypatch):
    """An unknown or gated id still gets an HTTP answer: the hub is up, and transformers reports the id itself."""
    asked = []

    class Hub(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server API
            asked.append(self.path)
            body = json.dumps({"error": "Repository not found"}).encode()
            self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        assert encoders.hub_unreachable("org/model") is None
        assert encoders.resolve_model("org/model") == ("org/model", "org/model")
        assert asked == ["/api/models/org/model", "/api/models/org/model"]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_offline_still_fails_at_once_without_a_request(monkeypatch):
    def asked(*args, **kwargs):
        raise AssertionError("the hub was asked while HF_HUB_OFFLINE=1")

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(loading, "hub_unreachable", asked)  # the name resolve_model looks up
    with pytest.raises(encoders.ModelNotAvailableError, match="not available offline"):
        encoders.resolve_model("org/model")
