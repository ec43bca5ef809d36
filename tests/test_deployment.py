"""Production settings pass Django's deployment checks; the OpenAPI schema is clean."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, **env}
    environment.pop("DATABASE_URL", None)  # the check needs no database
    environment.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set for browser tests only
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def check_deploy(site_url: str) -> subprocess.CompletedProcess:
    return run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="a-long-random-production-like-secret-" + "x" * 30,
        SITE_URL=site_url,
    )


def test_check_deploy_is_clean_with_production_settings():
    result = check_deploy("https://registry.example.org")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def test_check_deploy_warns_when_site_url_is_unset_or_loopback():
    for site_url, said in (
        ("", "SITE_URL is not set"),
        ("http://127.0.0.1:8000", "is a loopback address"),
        ("http://localhost", "is a loopback address"),
        ("http://[::1]:8000", "is a loopback address"),
        ("registry.example.org", "is not an http(s) URL with a host"),
    ):
        result = check_deploy(site_url)
        assert result.returncode == 1, site_url
        assert "registry.W001" in result.stderr, result.stderr
        assert said in result.stderr, result.stderr


def test_production_refuses_to_start_without_secret_key():
    result = run_manage(
        "check", DJANGO_SETTINGS_MODULE="config.settings.production", SECRET_KEY=""
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_openapi_schema_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    result = run_manage(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(out),
        DJANGO_SETTINGS_MODULE="config.settings.test",
    )
    assert result.returncode == 0, result.stderr
    assert "/api/v1/challenges/{id}/submit/" in out.read_text()


def test_debug_is_off_unless_set():
    """Issue 30: base settings defaulted to DEBUG on, so a deployment that
    forgot the variable showed tracebacks."""
    show = "from django.conf import settings; print(settings.DEBUG)"
    base = {"DJANGO_SETTINGS_MODULE": "config.settings.base", "DEBUG": ""}
    result = run_manage("shell", "-c", show, **base, SECRET_KEY="k" * 50)
    assert result.stdout.strip().splitlines()[-1] == "False"
    refused = run_manage("check", **base, SECRET_KEY="")
    assert refused.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in refused.stderr
