"""PyInstaller hook for piper-tts (no upstream hook exists).

espeak-ng is compiled into ``piper/espeakbridge.so`` (GPL-3.0); it reads its phoneme data from
``piper/espeak-ng-data`` next to the module, which is collected here. The HTTP server (Flask)
and the voice downloader are not used.
"""

from PyInstaller.utils.hooks import collect_data_files

datas = collect_data_files("piper", excludes=["**/img/**", "**/*.pyi"])
hiddenimports = ["piper.espeakbridge"]
excludedimports = ["flask", "piper.http_server", "piper.download_voices"]
