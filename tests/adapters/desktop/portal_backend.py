"""A fake desktop behind the real xdg-desktop-portal: a python-dbusmock template.

Run by the *system* Python (Debian python3-dbusmock, python3-dbus), never imported by the
tests: ``/usr/bin/python3 -m dbusmock -t tests/adapters/desktop/portal_backend.py -p JSON``.
It is the desktop's half of org.freedesktop.impl.portal.GlobalShortcuts, as KDE's or GNOME's
portal is, shaped after upstream's own test template (flatpak/xdg-desktop-portal
tests/templates/globalshortcuts.py). Every call is logged and announced with dbusmock's
``MethodCalled`` signal, so a test waits for a call instead of sleeping.

Parameters (JSON):
    bind_response: the response code of BindShortcuts (0 bound, 1 the user said no, 2 failed;
        -1: never answers, as a dialog nobody has answered yet).
    listed: ids the desktop already holds for the app (ListShortcuts returns them).
    trigger_description: the desktop's words for the key it gives a shortcut.

Mock methods for the test (interface org.freedesktop.DBus.Mock): ``Press(o session, s id)``
and ``Release(o session, s id)`` emit Activated and Deactivated, as a key going down and up.
"""

import time

import dbus
import dbus.service
from dbusmock import MOCK_IFACE

BUS_NAME = "org.freedesktop.impl.portal.Test"
MAIN_OBJ = "/org/freedesktop/portal/desktop"
MAIN_IFACE = "org.freedesktop.impl.portal.GlobalShortcuts"
SESSION_IFACE = "org.freedesktop.impl.portal.Session"
SYSTEM_BUS = False


def load(mock, parameters):
    mock.bind_response = int(parameters.get("bind_response", 0))
    mock.open_dialogs = []
    mock.listed = [str(i) for i in parameters.get("listed", [])]
    mock.trigger_description = str(parameters.get("trigger_description", "Ctrl+Alt+Space"))
    mock.AddProperties(MAIN_IFACE, dbus.Dictionary({"version": dbus.UInt32(1)}, signature="sv"))


def _shortcuts(mock, ids):
    return dbus.Array(
        [dbus.Struct((shortcut_id, dbus.Dictionary(
            {"description": "Push to talk", "trigger_description": mock.trigger_description},
            signature="sv"))) for shortcut_id in ids], signature="(sa{sv})")


def _results(**values):
    return dbus.Dictionary(values, signature="sv")


@dbus.service.method(MAIN_IFACE, in_signature="oosa{sv}", out_signature="ua{sv}")
def CreateSession(self, handle, session_handle, app_id, options):
    # The desktop's side of the session: the portal closes it when the app closes its own.
    self.AddObject(session_handle, SESSION_IFACE, {}, [("Close", "", "", "")])
    return dbus.UInt32(0), _results(session_handle=dbus.ObjectPath(session_handle))


@dbus.service.method(MAIN_IFACE, in_signature="ooa(sa{sv})sa{sv}", out_signature="ua{sv}",
                     async_callbacks=("reply", "fail"))
def BindShortcuts(self, handle, session_handle, shortcuts, parent_window, options, reply,
                  fail):
    if self.bind_response < 0:  # the dialog stays open: the user has not answered
        self.open_dialogs.append((reply, fail))
        return
    if self.bind_response:
        reply(dbus.UInt32(self.bind_response), _results())
        return
    self.listed = [str(shortcut[0]) for shortcut in shortcuts]
    reply(dbus.UInt32(0), _results(shortcuts=_shortcuts(self, self.listed)))


@dbus.service.method(MAIN_IFACE, in_signature="oo", out_signature="ua{sv}")
def ListShortcuts(self, handle, session_handle):
    return dbus.UInt32(0), _results(shortcuts=_shortcuts(self, self.listed))


def _emit(mock, name, session_handle, shortcut_id):
    mock.EmitSignal(MAIN_IFACE, name, "osta{sv}", [
        dbus.ObjectPath(session_handle), shortcut_id, dbus.UInt64(int(time.time() * 1000)),
        dbus.Dictionary({}, signature="sv")])


@dbus.service.method(MOCK_IFACE, in_signature="os", out_signature="")
def Press(self, session_handle, shortcut_id):
    _emit(self, "Activated", session_handle, shortcut_id)


@dbus.service.method(MOCK_IFACE, in_signature="os", out_signature="")
def Release(self, session_handle, shortcut_id):
    _emit(self, "Deactivated", session_handle, shortcut_id)
