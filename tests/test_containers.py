"""compose.yaml and the Dockerfile hold together (Docker itself is not run here)."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_compose_has_web_worker_database_and_broker_with_healthchecks():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert {"web", "worker", "db", "redis"} <= set(services)
    for name in ("web", "worker", "db", "redis"):
        assert "healthcheck" in services[name], name
    assert services["web"]["env_file"] == ".env"
    assert services["web"]["depends_on"]["db"] == {"condition": "service_healthy"}
    assert "gunicorn config.wsgi:application" in services["web"]["command"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "worker"]


def test_env_example_names_every_setting_compose_needs_and_no_real_secret():
    env = dict(
        line.split("=", 1)
        for line in (ROOT / ".env.example").read_text().splitlines()
        if line and not line.startswith("#")
    )
    for key in ("SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL"):
        assert key in env, key
    assert env["SECRET_KEY"].startswith("change-me")
    assert env["POSTGRES_PASSWORD"] == "change-me"


def test_dockerfile_is_multi_stage_and_runs_as_non_root():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert dockerfile.count("FROM ") == 2
    assert "USER app" in dockerfile
    assert "collectstatic" in dockerfile
    assert '"gunicorn", "config.wsgi:application"' in dockerfile


def test_every_service_restarts_and_the_watchdog_runs_every_minute():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    for name, service in services.items():
        assert service.get("restart") == "unless-stopped", name
    watchdog = services["jobs-watchdog"]["command"]
    assert "manage.py resume_jobs" in watchdog
    assert "sleep 60;" in watchdog
    assert "/health/" in " ".join(services["web"]["healthcheck"]["test"])


def test_the_backup_service_backs_up_daily_keeping_n_in_its_volume():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    backup = compose["services"]["backup"]
    assert "python manage.py backup $$dir" in backup["command"]
    assert "sleep 86400;" in backup["command"]  # daily
    assert "head -n -$${BACKUP_KEEP:-7}" in backup["command"]  # keeps the newest N
    assert "backups:/data/backups" in backup["volumes"]
    assert "media:/data/media" in backup["volumes"]  # the files it backs up
    assert "backups" in compose["volumes"]
    # the image makes the volume's mount point, owned by the user it runs as
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "/data/backups && chown -R app:app /data" in dockerfile


def test_the_image_ships_the_postgresql_client_of_composes_server():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    major = compose["services"]["db"]["image"].split(":")[1]
    assert f"postgresql-client-{major} " in (ROOT / "Dockerfile").read_text()


def test_readme_and_operations_agree_with_compose():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    major = compose["services"]["db"]["image"].split(":")[1]
    readme = " ".join((ROOT / "README.md").read_text().split())
    operations = " ".join((ROOT / "docs" / "operations.md").read_text().split())
    assert f"`db` (PostgreSQL {major})" in readme
    assert "`jobs-watchdog` (`resume_jobs` every minute)" in readme
    assert "every minute in compose" in operations
    assert "`TRUSTED_PROXIES`" in readme
    assert "send_review_reminders" in readme
    for setting in ("EMAIL_HOST", "EMAIL_PORT", "EMAIL_USE_TLS", "DEFAULT_FROM_EMAIL"):
        assert f"`{setting}`" in readme, setting


def test_operations_states_the_defaults_the_settings_have():
    """The table of docs/operations.md: each numeric default is the setting's."""
    from django.conf import settings

    operations = (ROOT / "docs" / "operations.md").read_text()
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([\d. ]+) \|", operations, re.MULTILINE)
    stated = {name: float(value.replace(" ", "")) for name, value in rows}
    assert len(stated) >= 10, stated
    for name, value in stated.items():
        assert float(getattr(settings, name)) == value, name
    compose = (ROOT / "compose.yaml").read_text()
    visibility = settings.CELERY_VISIBILITY_TIMEOUT
    assert f"CELERY_VISIBILITY_TIMEOUT\n  # (default {visibility} s)" in compose


def test_the_upload_parse_budget_ends_before_gunicorn_kills_the_worker():
    """An upload whose parse runs long gets the parse budget's message, not the
    500 of a worker gunicorn killed at its --timeout."""
    from django.conf import settings

    for text in (
        (ROOT / "compose.yaml").read_text(),
        (ROOT / "Dockerfile").read_text(),
    ):
        timeout = int(re.search(r'--timeout"?,? "?(\d+)', text).group(1))
        assert timeout - 10 >= settings.MAX_UPLOAD_PARSE_SECONDS
