"""Where the models are: the resolver over the manifest, and ``models prepare``."""

__all__ = [
    "model_files",
    "model_import",
    "model_resolver",
]
