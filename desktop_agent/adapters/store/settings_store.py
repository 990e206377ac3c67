"""Load and save ``Settings`` as TOML in the user's config directory.

Reading never raises: a missing file gives defaults; a corrupt or partly invalid file is
copied to ``settings.toml.bak`` (so nothing the user wrote is lost) and whatever could be
read is used, with a warning for each problem. Writing is atomic (temp file + rename), so
a crash mid-save leaves the old file intact.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.settings import KEPT_TABLES, Settings

_LOGGER = logging.getLogger(__name__)

APP_NAME: Final = "desktop_agent"
FILE_NAME: Final = "settings.toml"
_HEADER: Final = (
    "# desktop_agent settings. Edit while the app is closed, or use Settings in the app.\n"
    "# An invalid value is replaced by its default (the old file is kept as settings.toml.bak).\n\n"
)


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What ``load_settings`` found."""

    settings: Settings
    path: Path
    warnings: tuple[str, ...] = ()
    """One human sentence per problem (corrupt file, unknown key, invalid value)."""
    backup_path: Path | None = None
    """Where the problem file was copied, or None when nothing needed keeping."""


def default_settings_path() -> Path:
    """``<user config dir>/desktop_agent/settings.toml`` for this platform."""
    import platformdirs  # a small pinned dependency; imported here to keep import time low

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / FILE_NAME


def load_settings(path: Path | None = None) -> LoadResult:
    """Read settings from ``path`` (default: ``default_settings_path()``). Never raises."""
    path = path or default_settings_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return LoadResult(Settings(), path)
    except OSError as err:
        warning = f"Could not read {path} ({err.strerror or err}); using default settings."
        _LOGGER.warning("turn=0 %s", warning)
        return LoadResult(Settings(), path, (warning,))
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        backup = _backup(path)
        warning = f"{path} is not valid TOML ({err}); using default settings."
        if backup:
            warning += f" The old file was kept as {backup}."
        _LOGGER.warning("turn=0 %s", warning)
        return LoadResult(Settings(), path, (warning,), backup)
    parsed = Settings.parse(data)
    warnings = [f"Ignored unknown setting {key!r}." for key in parsed.unknown_keys]
    warnings += [f"{err.message}; using the default instead." for err in parsed.rejected]
    backup = _backup(path) if warnings else None
    for warning in warnings:
        _LOGGER.warning("turn=0 %s: %s", path, warning)
    return LoadResult(parsed.settings, path, tuple(warnings), backup)


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write ``settings`` atomically to ``path`` and return the path.

    Raises:
        SettingsError: code 'settings_write_failed' when the file cannot be written.
    """
    import tomli_w

    path = path or default_settings_path()
    _write(path, _HEADER + tomli_w.dumps({**settings.to_dict(), **_kept_tables(path)}))
    return path


def save_kept_table(name: str, table: dict[str, object], path: Path | None = None) -> Path:
    """Replace one table another parser reads (``[mcp]``) in ``path``, keeping the rest.

    The settings themselves are kept as the file has them (an unreadable file is not
    overwritten: the error says so).

    Raises:
        SettingsError: 'settings_write_failed' when the file cannot be read as TOML or
            cannot be written.
    """
    import tomli_w

    if name not in KEPT_TABLES:
        raise ValueError(f"{name!r} is not a table kept beside the settings")
    path = path or default_settings_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise SettingsError("settings_write_failed", f"Could not read {path}: {err}.",
                            "Correct or remove the file, then save again.") from err
    data[name] = table
    _write(path, _HEADER + tomli_w.dumps(data))
    return path


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temp file + rename)."""
    tmp_name = ""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)  # atomic on POSIX and Windows (same directory)
    except OSError as err:
        if tmp_name:
            Path(tmp_name).unlink(missing_ok=True)
        raise SettingsError(
            "settings_write_failed",
            f"Could not save settings to {path}: {err.strerror or err}.",
            "Check that the folder exists and is writable, then save again.",
        ) from err


def _kept_tables(path: Path) -> dict[str, object]:
    """The tables another parser reads (``[mcp]``), as the file has them now."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    return {k: data[k] for k in KEPT_TABLES if isinstance(data.get(k), dict)}


def _backup(path: Path) -> Path | None:
    """Copy ``path`` to a .bak file that does not overwrite an earlier backup."""
    backup = path.with_name(path.name + ".bak")
    n = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}.bak{n}")
        n += 1
    try:
        shutil.copy2(path, backup)
    except OSError as err:
        _LOGGER.warning("turn=0 could not back up %s: %s", path, err)
        return None
    return backup
