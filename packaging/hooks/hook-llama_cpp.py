"""PyInstaller hook for llama-cpp-python (no upstream hook exists).

llama_cpp loads libllama/libggml* with ctypes from ``Path(__file__).parent / "lib"``, so the
shared libraries must land in ``llama_cpp/lib`` inside the bundle; PyInstaller's import scan
cannot see ctypes loads. The OpenAI-compatible server (FastAPI, uvicorn) is not used.
"""

from PyInstaller.utils.hooks import collect_dynamic_libs

binaries = collect_dynamic_libs("llama_cpp")
excludedimports = ["llama_cpp.server", "uvicorn", "fastapi", "sse_starlette", "starlette_context"]
