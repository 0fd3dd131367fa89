"""docker/compose.yaml's structure: every command exists, every variable it needs is set (issue 16).

Containers cannot run on this project's machines; .ci/prodlayout.py runs these same commands.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
APP = {name: s for name, s in SERVICES.items() if "build" in s}
ENTRYPOINT = (ROOT / "docker" / "entrypoint.sh").read_text()
QUEUES = {"timers", "bots", "celery"}


def _required_env() -> set[str]:
    """The variables the production settings read with os.environ[...] (no default)."""
    names: set[str] = set()
    for path in (ROOT / "config" / "settings").glob("*.py"):
        if path.name in ("prod.py", "base.py"):
            names |= set(re.findall(r"os\.environ\[\"(\w+)\"\]", path.read_text()))
    return names


def test_the_layout_has_every_process():
    assert {"postgres", "redis", "migrate", "web", "beat", "proxy"} <= set(SERVICES)
    queues = set()
    for service in APP.values():
        command = service["command"]
        if "worker" in command:
            queues.add(command[command.index("-Q") + 1])
    assert queues == QUEUES, "a worker service per queue"


def test_every_app_command_exists():
    cases = set(re.findall(r"^\s+(\w+)\)", ENTRYPOINT, flags=re.M))
    venv = ROOT / ".venv" / "bin"
    for name, service in APP.items():
        command = service["command"]
        first = command[0]
        assert first in cases or shutil.which(first, path=str(venv)) or shutil.which(first), (name, first)
        if first == "celery":
            assert command[1:3] == ["-A", "config"], name
    assert 'exec python -m front --host "${WEB_HOST:-0.0.0.0}" --port "${WEB_PORT:-8000}"' in ENTRYPOINT
    assert (ROOT / "front" / "__main__.py").exists()


def test_the_web_service_is_the_front_make_run_serves():
    """One front everywhere: bin/run starts `python -m front` too, and no other server is configured."""
    assert '"$BIN/python" -m front' in (ROOT / "bin" / "run").read_text()
    assert SERVICES["web"]["command"] == ["web"] and "stream" not in SERVICES
    assert not any("gunicorn" in str(service.get("command")) for service in APP.values())


def test_the_image_installs_the_wheel_that_ci_proves():
    """The Dockerfile builds the project's wheel and installs it (.ci/artefact installs the same wheel
    in a clean virtualenv with no source and serves every kind of request); its commands need no
    source tree (django-admin, not manage.py)."""
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert "pip wheel --no-deps --wheel-dir /wheels ." in dockerfile
    assert "pip install /wheels/tabula-*.whl" in dockerfile
    assert "manage.py" not in ENTRYPOINT.replace("stands for manage.py", "")
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".git", ".venv", "var", "tests", "node_modules"} <= ignored


def test_the_wheel_carries_every_package_and_its_files():
    pyproject = (ROOT / "pyproject.toml").read_text()
    include = re.search(r"\[tool\.setuptools\.packages\.find\]\ninclude = \[(.*?)\]", pyproject)
    assert include
    packages = {name.rstrip("*") for name in re.findall(r'"([^"]+)"', include.group(1))}
    on_disk = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    assert on_disk <= packages, on_disk - packages  # a new top-level package must be in the wheel
    data = re.search(r"\[tool\.setuptools\.package-data\]\n(.*?)\n\n", pyproject, re.S)
    assert data and "static/**/*" in data.group(1) and "templates/**/*" in data.group(1)


def test_every_variable_the_settings_need_is_set():
    required = _required_env() | {"DATABASE_URL", "CELERY_BROKER_URL", "ALLOWED_HOSTS", "PROMETHEUS_MULTIPROC_DIR"}
    for name, service in APP.items():
        env = service.get("environment") or {}
        missing = required - set(env)
        assert not missing, (name, missing)
        assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.prod", name
        assert "@postgres:" in env["DATABASE_URL"] and "//redis:" in env["CELERY_BROKER_URL"], name
        for value in map(str, env.values()):
            for var, op, _ in re.findall(r"\$\{(\w+)(?::([-?]))?([^}]*)\}", value):
                assert op in ("-", "?"), f"{name}: ${{{var}}} has neither a default nor a required message"


def test_the_proxy_renders_its_template_with_every_variable_set():
    proxy = SERVICES["proxy"]
    template = (ROOT / "docker" / "nginx" / "default.conf.template").read_text()
    active = "\n".join(line for line in template.splitlines() if not line.lstrip().startswith("#"))
    needed = set(re.findall(r"\$\{(\w+)\}", active))
    assert needed and needed <= set(proxy["environment"]), needed - set(proxy["environment"])
    mount = next(v for v in proxy["volumes"] if "default.conf.template" in v)
    assert (ROOT / "docker" / mount.split(":")[0]).resolve() == ROOT / "docker" / "nginx" / "default.conf.template"
    assert "location = /metrics" in active and "proxy_request_buffering on" in active
    assert set(re.findall(r"proxy_pass http://(\w+);", active)) == {"tabula_web"}  # one front for everything
    stream = re.search(r"location ~ \^/api/v1/\(me\|matches.*?\}", active, flags=re.S)
    assert stream and "proxy_buffering off;" in stream.group(0)  # the live streams pass unbuffered


def test_services_wait_for_what_they_need():
    for name, service in APP.items():
        if name == "migrate":
            continue
        deps = service["depends_on"]
        assert deps["migrate"]["condition"] == "service_completed_successfully", name
        assert deps["postgres"]["condition"] == "service_healthy", name
    assert "readyz" in " ".join(SERVICES["web"]["healthcheck"]["test"])


def test_the_app_behind_the_proxy_reads_the_clients_address_from_it():
    """nginx adds the client's address to X-Forwarded-For; without TABULA_TRUSTED_PROXIES every
    client would be the proxy's address, one shared budget for every per-address rate limit."""
    template = (ROOT / "docker" / "nginx" / "default.conf.template").read_text()
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in template
    env = SERVICES["web"]["environment"]
    assert re.fullmatch(r"(\$\{TABULA_TRUSTED_PROXIES:-)?1\}?", str(env.get("TABULA_TRUSTED_PROXIES")))
