"""PyInstaller hook for CTranslate2 (no upstream hook exists).

The extension links ``ctranslate2.libs/libctranslate2-*.so`` and its own renamed libgomp by
RPATH; PyInstaller's binary analysis follows those. The converters import torch/transformers
only when converting models, which the app never does.
"""

from PyInstaller.utils.hooks import collect_dynamic_libs

binaries = collect_dynamic_libs("ctranslate2")
excludedimports = ["torch", "transformers", "tensorflow", "opennmt", "fairseq", "sentencepiece"]
