"""PySide6 widgets: windows and widgets that talk to the runtime by signals and slots."""
