"""Qt test setup: offscreen platform (set before Qt is imported) and shared fixtures."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import ctypes  # noqa: E402
import sys  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from desktop_agent.adapters.store import settings_store  # noqa: E402
from desktop_agent.core.settings import Settings  # noqa: E402
from desktop_agent.devtools.demo_view_model import RecordingViewModel  # noqa: E402
from desktop_agent.gui.main_window import MainWindow  # noqa: E402

pytestmark = pytest.mark.gui

_SINGLETONS = (None, True, False)


@pytest.fixture(autouse=True)
def _singleton_refcount_guard() -> Iterator[None]:
    """Keep None/True/False alive under PySide6 6.12.0 on Python 3.11.

    That binding drops a reference to None (or True/False) on every void (or bool) call,
    so a long test session ends in 'Fatal Python error: none_dealloc'. Python 3.12+ makes
    these objects immortal and is unaffected. This tops the counts back up after each test
    so the other tests can run; ``test_binding.py`` fails on the broken combination, so
    the problem stays visible rather than hidden.
    """
    before = [sys.getrefcount(o) for o in _SINGLETONS]
    yield
    if sys.version_info >= (3, 12):
        return
    for obj, count in zip(_SINGLETONS, before, strict=True):
        for _ in range(max(0, count - sys.getrefcount(obj))):
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


@pytest.fixture
def vm() -> RecordingViewModel:
    """A view model that records requests and emits what a test tells it to."""
    return RecordingViewModel()


@pytest.fixture
def settings_path(tmp_path: Path) -> Path:
    """Where the window under test saves settings."""
    return tmp_path / "config" / "settings.toml"


@pytest.fixture
def window(qtbot, vm: RecordingViewModel, settings_path: Path) -> MainWindow:
    """A shown MainWindow wired to ``vm`` that saves through the real settings store."""
    win = MainWindow(vm, Settings(), settings_path, save_settings=settings_store.save_settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win
