"""A fake desktop's RemoteDesktop behind the real xdg-desktop-portal: a python-dbusmock template.

Run by the *system* Python (Debian python3-dbusmock), never imported by the tests:
``/usr/bin/python3 -m dbusmock -t tests/adapters/desktop/portal_remote_backend.py -p JSON``.
It is the desktop's half of org.freedesktop.impl.portal.RemoteDesktop, as GNOME's or KDE's
portal is, under a bus name of its own (``portal_backend.py`` has the GlobalShortcuts, whose
method names are the same). Every call is logged and announced with dbusmock's
``MethodCalled`` signal (the keys typed are the ``NotifyKeyboardKeysym`` calls), so a test
waits for a call instead of sleeping. ``CloseSession(o)`` on the Mock interface closes a
session from the desktop's side, as a user who revokes the grant does.

Parameters (JSON):
    start_response: the response code of Start (0 allowed, 1 the user said no, 2 failed);
        a list gives one code per Start in turn (the last one for the rest); -1 never
        answers (a dialog nobody has answered yet).
    devices: the device types the desktop offers (AvailableDeviceTypes: 1 keyboard,
        2 pointer, 4 touchscreen) and grants in Start (those asked for, of these).
    close_after: after this many key events the desktop closes the session, once (0 never):
        a grant revoked in the middle of a text.
    restore_token: what Start hands back as ``restore_token`` ('' none). Debian 12's portal
        (1.16) keeps no remote desktop grants: it passes Start's results through and does not
        forward ``persist_mode`` or ``restore_token`` to the desktop. From 1.17 the portal
        itself swaps the desktop's restore data for a token; here the fake desktop gives
        the token in its place, so the client's keeping of it is tested through the real
        frontend.
"""

import dbus
import dbus.service
from dbusmock import MOCK_IFACE
from dbusmock.mockobject import objects

BUS_NAME = "org.freedesktop.impl.portal.TestRemote"
MAIN_OBJ = "/org/freedesktop/portal/desktop"
MAIN_IFACE = "org.freedesktop.impl.portal.RemoteDesktop"
SESSION_IFACE = "org.freedesktop.impl.portal.Session"
SYSTEM_BUS = False


def load(mock, parameters):
    codes = parameters.get("start_response", 0)
    mock.start_codes = [int(c) for c in (codes if isinstance(codes, list) else [codes])]
    mock.devices = int(parameters.get("devices", 7))
    mock.restore_token = str(parameters.get("restore_token", ""))
    mock.close_after = int(parameters.get("close_after", 0))
    mock.keys = 0
    mock.selected = {}
    mock.open_dialogs = []
    mock.AddProperties(MAIN_IFACE, dbus.Dictionary({
        "version": dbus.UInt32(2), "AvailableDeviceTypes": dbus.UInt32(mock.devices)},
        signature="sv"))


def _results(**values):
    return dbus.Dictionary(values, signature="sv")


@dbus.service.method(MAIN_IFACE, in_signature="oosa{sv}", out_signature="ua{sv}")
def CreateSession(self, handle, session_handle, app_id, options):
    self.AddObject(session_handle, SESSION_IFACE, {}, [("Close", "", "", "")])
    return dbus.UInt32(0), _results(session_handle=dbus.ObjectPath(session_handle))


@dbus.service.method(MAIN_IFACE, in_signature="oosa{sv}", out_signature="ua{sv}")
def SelectDevices(self, handle, session_handle, app_id, options):
    self.selected[str(session_handle)] = int(options.get("types", self.devices))
    return dbus.UInt32(0), _results()


@dbus.service.method(MAIN_IFACE, in_signature="oossa{sv}", out_signature="ua{sv}",
                     async_callbacks=("reply", "fail"))
def Start(self, handle, session_handle, app_id, parent_window, options, reply, fail):
    code = self.start_codes.pop(0) if len(self.start_codes) > 1 else self.start_codes[0]
    if code < 0:
        self.open_dialogs.append((reply, fail))
        return
    if code:
        reply(dbus.UInt32(code), _results())
        return
    granted = self.selected.get(str(session_handle), self.devices) & self.devices
    results = _results(devices=dbus.UInt32(granted))
    if self.restore_token:
        results["restore_token"] = dbus.String(self.restore_token)
    reply(dbus.UInt32(0), results)


@dbus.service.method(MAIN_IFACE, in_signature="oa{sv}iu", out_signature="")
def NotifyKeyboardKeysym(self, session_handle, options, keysym, state):
    self.keys += 1
    if self.close_after and self.keys == self.close_after:
        self.close_after = 0
        objects[str(session_handle)].EmitSignal(SESSION_IFACE, "Closed", "", [])


@dbus.service.method(MOCK_IFACE, in_signature="o", out_signature="")
def CloseSession(self, session_handle):
    objects[str(session_handle)].EmitSignal(SESSION_IFACE, "Closed", "", [])
