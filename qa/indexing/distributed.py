"""Distributed ingest: the `prepare` and `embed` stages of `qa.indexing.ingest` on a Ray cluster.

Ray Data sends the list of files to a pool of actors (`ActorPoolStrategy`), each holding
the embedding model; an actor reads, loads, chunks and embeds a batch of files and
returns the embedded documents, which this process (the driver) writes to the backend
one document at a time, as `qa.indexing.ingest` does. Workers therefore need the files at the
same paths (a shared file system) and the model, not the index.

Without an address, a local Ray of this machine's CPUs is started (and stopped after
the run) with one actor of 0.75 CPU per CPU: actors of a whole CPU each leave nothing
for Ray Data's other tasks, and the run hangs (seen on 2 CPUs). On a cluster the pool
grows to one actor per CPU.
"""

import logging
import math
import os
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from tqdm import tqdm

from qa.backends import Backend, FileState
from qa.errors import QAError
from qa.indexing.embedding import load_embedder
from qa.indexing.ingest import (
    EMBED_BATCH_CHUNKS,
    Embedded,
    Outcome,
    Prepared,
    Report,
    embed,
    find,
    prepare,
    remove_vanished,
    write,
)
from qa.loaders.base import RunPages
from qa.settings import Settings

log = logging.getLogger(__name__)
LOCAL_CPUS = os.cpu_count() or 1
# Seconds a local Ray's GCS may take to start (Ray's default, 30, runs out on a busy laptop:
# ingest then fails before it begins); a value set in the environment wins.
GCS_START_SECONDS = "120"
LOCAL_START_ATTEMPTS = 3  # a local Ray that does not start is started again, twice at most
LOCAL_ACTOR_CPUS = 0.75
FILES_PER_BATCH = 64


def _ray():
    try:
        import ray
    except ImportError as error:
        raise QAError("qa index --ray needs Ray: pip install 'qa[ray]'") from error
    return ray


class _Worker:
    """A Ray actor: prepares and embeds batches of files with its own copy of the model."""

    def __init__(self, settings: Settings) -> None:
        import torch

        torch.set_num_threads(1)  # an actor has a CPU of its own (less, locally: 0.75)
        self.settings = settings
        self.embedder = load_embedder(settings.model, settings.batch_size, settings.precision)
        self.run_pages = RunPages(settings.ocr_pages)  # each worker its own

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        items: list[Embedded | Outcome] = []
        pending: list[Prepared] = []
        for path, named, size, mtime, sha in zip(
            batch["path"], batch["named"], batch["size"], batch["mtime"], batch["sha256"],
            strict=True,
        ):
            known = FileState(int(size), float(mtime), str(sha)) if sha else None
            item = prepare(Path(path), known, bool(named), self.settings, self.embedder,
                           self.run_pages)
            if isinstance(item, Prepared):
                pending.append(item)
            else:
                items.append(item)
        for group in _batches(pending):
            items += embed(group, self.embedder)
        column = np.empty(len(items), dtype=object)
        column[:] = items
        return {"item": column}


def _batches(pending: list[Prepared]) -> Iterator[list[Prepared]]:
    """Consecutive groups of about EMBED_BATCH_CHUNKS chunks."""
    group: list[Prepared] = []
    for item in pending:
        group.append(item)
        if sum(len(p.chunks) for p in group) >= EMBED_BATCH_CHUNKS:
            yield group
            group = []
    if group:
        yield group


def ray_ingest(
    backend: Backend, paths: list[Path], settings: Settings, address: str | None = None
) -> Report:
    """Like `qa.indexing.ingest.ingest`, with reading and embedding done by Ray actors."""
    ray = _ray()
    started = not ray.is_initialized()
    if started:
        _connect(ray, address)
    try:
        report = Report()
        known = backend.file_states()
        files = []
        for found in find(paths):
            if isinstance(found, Outcome):
                write(backend, [found], report)
            else:
                files.append(found)
        if files:
            for item in tqdm(_embedded(ray, files, known, settings, address is None),
                             total=len(files), unit="file", desc="indexing (ray)"):
                write(backend, [item], report)
        remove_vanished(backend, known, paths, report)
        return report
    finally:
        if started:
            ray.shutdown()


def _connect(ray, address: str | None) -> None:
    """Reach the Ray at `address`, or start a local one; a local one that fails to start
    is started again, after the failed attempt's processes are shut down (a second local
    cluster in one process can time out waiting for its GCS while the previous one's
    processes are still leaving, and on a loaded machine the raylet can miss Ray's fixed
    30 s to register, which Ray reports as a bare Exception)."""
    attempts = 1 if address is not None else LOCAL_START_ATTEMPTS
    for attempt in range(1, attempts + 1):
        try:
            if address is None:
                os.environ.setdefault("RAY_gcs_server_port_wait_time_s", GCS_START_SECONDS)
                ray.init(num_cpus=LOCAL_CPUS, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
            return
        except Exception as error:  # Ray's startup timeout is a bare Exception
            if attempt == attempts:
                raise QAError(f"cannot start or reach Ray at {address or 'a local cluster'}: "
                              f"{error}") from error
            log.warning("a local Ray did not start (%s); starting it again", error)
            ray.shutdown()
            time.sleep(2)


def _embedded(ray, files, known: dict[str, FileState], settings: Settings,
              local: bool) -> Iterator[Embedded | Outcome]:
    from ray.data import ActorPoolStrategy, DataContext

    logging.getLogger("ray.data").setLevel(logging.ERROR)
    DataContext.get_current().enable_progress_bars = False  # ours counts files
    rows = []
    for file, named in files:
        state = known.get(str(file))
        rows.append({"path": str(file), "named": named, "size": state.size if state else 0,
                     "mtime": state.mtime if state else 0.0,
                     "sha256": state.sha256 if state else ""})
    blocks = math.ceil(len(rows) / FILES_PER_BATCH)
    if local:
        pool, cpus = ActorPoolStrategy(size=min(LOCAL_CPUS, blocks)), LOCAL_ACTOR_CPUS
    else:
        cpus_there = max(1, int(ray.cluster_resources().get("CPU", 1)))
        pool, cpus = ActorPoolStrategy(min_size=1, max_size=min(cpus_there, blocks)), 1
    dataset = ray.data.from_items(rows, override_num_blocks=blocks)
    dataset = dataset.map_batches(
        _Worker, fn_constructor_kwargs={"settings": settings}, batch_size=FILES_PER_BATCH,
        compute=pool, num_cpus=cpus,
    )
    for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
        yield from batch["item"]
