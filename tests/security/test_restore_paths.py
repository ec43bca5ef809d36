"""Attack: a backup whose manifest writes outside the media folder (issue 30).

A manifest entry ``../app_code.py`` was written beside ``media/`` and the
restore printed "Restored. OK". Every path is now checked before anything is
read or changed.
"""

import hashlib
import json
import re

import pytest
from django.test import override_settings

from analysis.backups import XML_DUMP, BackupError, restore

PAYLOAD = b"print('owned')\n"


def hostile_backup(directory, media_name: str, *, database: str = XML_DUMP):
    sha = hashlib.sha256(PAYLOAD).hexdigest()
    (directory / "media").mkdir(parents=True)
    (directory / "media" / "evil.py").write_bytes(PAYLOAD)
    (directory / XML_DUMP).write_text("<django-objects/>")
    manifest = {
        "format": 1,
        "database": {"vendor": "sqlite", "file": database, "sha256": "0" * 64},
        "media": {media_name: sha},
    }
    (directory / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    "name", ["../app_code.py", "reports/../../app_code.py", "/tmp/app_code.py"]
)
def test_restore_refuses_a_media_path_outside_the_media_folder(tmp_path, name):
    media_root = tmp_path / "site" / "media"
    media_root.mkdir(parents=True)
    hostile_backup(tmp_path / "backup", name)
    with (
        override_settings(MEDIA_ROOT=media_root),
        pytest.raises(BackupError) as caught,
    ):
        restore(tmp_path / "backup")
    assert str(caught.value) == (
        f"The manifest names 1 file(s) outside the media folder ({name!r}); "
        "nothing was restored."
    )
    assert not (tmp_path / "site" / "app_code.py").exists()


def test_restore_refuses_a_media_path_through_a_symbolic_link(tmp_path):
    media_root = tmp_path / "site" / "media"
    media_root.mkdir(parents=True)
    (media_root / "reports").symlink_to(tmp_path / "site")
    hostile_backup(tmp_path / "backup", "reports/app_code.py")
    with (
        override_settings(MEDIA_ROOT=media_root),
        pytest.raises(BackupError, match="outside the media folder"),
    ):
        restore(tmp_path / "backup")
    assert not (tmp_path / "site" / "app_code.py").exists()


def test_restore_refuses_a_database_file_by_another_name(tmp_path):
    hostile_backup(tmp_path / "backup", "ok.py", database="../../etc/passwd")
    with pytest.raises(
        BackupError, match=re.escape("database file '../../etc/passwd'")
    ):
        restore(tmp_path / "backup")
