"""Speech engines on another computer: their addresses and what the settings allow."""

__all__ = ["address"]
