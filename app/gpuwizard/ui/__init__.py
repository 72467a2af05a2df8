"""The PySide6 shell: wizard pages, workers and widgets. No business logic lives here."""
