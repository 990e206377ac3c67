"""PySide6 widgets: windows and widgets that talk to the runtime by signals and slots."""

__all__ = [
    "a11y",
    "actions_presenter",
    "alarm_notice",
    "confirm_card",
    "conversation",
    "evidence_panel",
    "folder_list",
    "heard_panel",
    "latency",
    "ledger_panel",
    "main_window",
    "menus",
    "meters",
    "privacy_menu",
    "ptt",
    "settings_dialog",
    "state_diagram",
    "status",
    "theme",
    "turn_gate",
]
