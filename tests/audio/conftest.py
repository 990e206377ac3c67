"""Audio tests share the ``pulse_server`` fixture of tests/conftest.py.

It is implemented in :mod:`tests.audio.pulse`: a private PulseAudio daemon with a
``speaker`` null sink, a ``micsink`` null sink whose monitor is the default input, and a
loopback ``speaker.monitor -> micsink`` so everything played comes back as echo.
"""
