"""The Milvus backend: an index in Milvus Lite (one `.db` file, in this process) or on a
Milvus server or cluster, through the same pymilvus client (`backend`). pymilvus is
imported only when an index is opened, so the registration costs nothing.
"""

from pathlib import Path

from qa.backends.base import BackendConfig, BackendKind

__all__ = ["KIND", "LITE_FILE"]

LITE_FILE = "milvus.db"  # inside the index folder, when no Milvus URI is given


def _uri(folder: Path, config: BackendConfig) -> str:
    return config.milvus_uri or str(folder / LITE_FILE)


def _open(folder: Path, config: BackendConfig):
    from qa.backends.milvus.backend import MilvusBackend

    return MilvusBackend(_uri(folder, config), config.milvus_token)


def _exists(folder: Path, config: BackendConfig) -> bool:
    uri = _uri(folder, config)
    return uri.startswith(("http://", "https://")) or Path(uri).exists()  # a server: opening tells


KIND = BackendKind(
    open=_open,
    exists=_exists,
    files=frozenset({LITE_FILE}),
    in_folder=lambda config: not config.milvus_uri,
)
