"""Uploads under hostile use, through a real `qa serve`: names that clean up alike, the
same file twice, a damaged copy of a good file, a busy index, and files a crash left.

Files are uploaded as the page uploads them (Gradio's upload route, then the upload
event, with the page's own Origin), by a plain HTTP client.
"""

import html
import json
import re
import uuid
from pathlib import Path

import httpx
import pytest
from filelock import FileLock

from tests.helpers import qa_serve
from tests.test_ui import _event_index

pytestmark = pytest.mark.process

LEFT_BEHIND = "The lighthouse keeper Ottoline logs every storm in a green ledger."


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`qa serve` over a new index whose uploads folder holds a file no index ever saw."""
    folder = tmp_path_factory.mktemp("uploads-server")
    index = folder / "index"
    (index / "uploads").mkdir(mode=0o700, parents=True)
    (index / "uploads" / "left-behind.txt").write_text(LEFT_BEHIND)
    log, env = folder / "serve.log", {"GRADIO_TEMP_DIR": str(folder / "cache")}
    with qa_serve(index, log, env=env) as (url, _):
        yield {"url": url, "uploads": index / "uploads", "lock": index / "write.lock",
               "log": log}


@pytest.fixture(scope="module")
def client(served):
    from gradio_client import Client

    return Client(served["url"], verbose=False)


def upload(url: str, *files: tuple[str, bytes]) -> str:
    """Upload files as the page does: the status lines' text."""
    data = []
    for name, content in files:
        path = httpx.post(f"{url}/gradio_api/upload", files={"files": (name, content)},
                          headers={"origin": url}).json()[0]
        data.append({"path": path, "meta": {"_type": "gradio.FileData"}, "orig_name": name})
    return page_event(url, "qa-upload", "upload", [data, "", False])  # into no collection


def remove(url: str, path: Path) -> str:
    """Remove a document as its ✕ in the documents list does: the status line's text."""
    return page_event(url, "qa-documents", "click", [],
                      {"action": "remove", "document": str(path)})


def page_event(url: str, elem_id: str, trigger: str, data: list, event_data=None,
               headers: dict | None = None, output: int = 0) -> str:
    """Send the page's event, with its own Origin (unless other headers are given): the
    status lines' text (the event's first output, or the one numbered `output`)."""
    session, headers = uuid.uuid4().hex, headers or {"origin": url}
    body = {"data": data, "fn_index": _event_index(url, elem_id, trigger),
            "session_hash": session, "event_data": event_data}
    httpx.post(f"{url}/gradio_api/queue/join", json=body, headers=headers).raise_for_status()
    with httpx.stream("GET", f"{url}/gradio_api/queue/data", params={"session_hash": session},
                      headers=headers, timeout=180) as stream:
        done = next(line for line in stream.iter_lines() if "process_completed" in line)
    status = json.loads(done.removeprefix("data:"))["output"]["data"][output]
    return html.unescape(re.sub(r"<[^>]*>", "\n", status))


def found(client, query: str) -> list[tuple[str, str]]:
    """(file name, passage) of the search hits for `query`."""
    return [(Path(hit["source"]).name, hit["text"])
            for hit in client.predict(query, 10, api_name="/search")]


def test_an_upload_a_crash_left_unindexed_is_indexed_when_qa_serve_starts(served, client):
    assert ("left-behind.txt", LEFT_BEHIND) in found(client, "lighthouse keeper Ottoline")
    assert "qa serve: left-behind.txt is indexed (1 passage)" in served["log"].read_text()


MINUTES = {  # each name as uploaded: (its content, where it must be stored)
    "Minutes (draft).txt": (b"The kite budget is forty pounds.", "Minutes (draft).txt"),
    "Minutes [draft].txt": (b"The bell budget is fifty pounds.", "Minutes [draft].txt"),
    "Minutes #draft#.txt": (b"The drum budget is sixty pounds.", "Minutes _draft_.txt"),
    "Minutes %draft%.txt": (b"The flute budget is seventy pounds.", "Minutes _draft_ (2).txt"),
    "a" * 130 + "-one.txt": (b"The first long name holds the oboe budget.", "a" * 116 + ".txt"),
    "a" * 130 + "-two.txt": (b"The second long name holds the harp budget.",
                             "a" * 112 + " (2).txt"),
}


def test_names_that_clean_up_alike_never_replace_one_another(served, client):
    status = upload(served["url"], *((name, content) for name, (content, _) in MINUTES.items()))

    for content, stored in MINUTES.values():
        assert (served["uploads"] / stored).read_bytes() == content
        assert (stored, content.decode()) in found(client, content.decode())
        assert f"{stored} is indexed (1 passage)" in status, status
    assert ("Minutes _draft_.txt is stored as Minutes _draft_ (2).txt, as a different file "
            "already has its name.") in status
    assert len(list(served["uploads"].iterdir())) == 1 + len(MINUTES)  # no partial copies


def test_the_same_file_uploaded_again_is_recognised_as_already_there(served, client):
    content, _ = MINUTES["Minutes (draft).txt"]
    before = sorted(served["uploads"].iterdir())

    status = upload(served["url"], ("Minutes (draft).txt", content))

    assert "Minutes (draft).txt is already there: the same file was uploaded before." in status
    assert sorted(served["uploads"].iterdir()) == before
    assert found(client, "kite budget").count(("Minutes (draft).txt", content.decode())) == 1


def test_a_damaged_reupload_leaves_the_good_copy_and_its_document(served, client):
    good = b"The quarterly report counts 212 ferry crossings."
    upload(served["url"], ("report.txt", good))

    status = upload(served["url"], ("report.txt", b"\x00\x01\x02 damaged \x00" * 100))

    assert "report.txt could not be read: binary data, not text." in status
    assert "The earlier report.txt is kept, with its passages." in status
    assert (served["uploads"] / "report.txt").read_bytes() == good
    assert not (served["uploads"] / "report (2).txt").exists()
    assert ("report.txt", good.decode()) in found(client, "quarterly report ferry crossings")


def test_an_upload_the_busy_index_could_not_take_is_indexed_with_the_next(served, client):
    with FileLock(served["lock"]):  # another writer holds the index for longer than 10 s
        status = upload(served["url"], ("stormy.txt", b"The stormy night sank three boats."))
    assert "stormy.txt: stored, not indexed yet: Another process is writing the index" in status
    assert (served["uploads"] / "stormy.txt").exists()

    status = upload(served["url"], ("calm.txt", b"The calm morning raised two boats."))

    assert "stormy.txt is indexed (1 passage)" in status and "calm.txt is indexed" in status
    assert ("stormy.txt", "The stormy night sank three boats.") in found(client, "stormy night")


def test_a_removal_the_busy_index_refuses_can_be_made_again_and_stays_made(served, client):
    stormy = served["uploads"] / "stormy.txt"
    with FileLock(served["lock"]):
        status = remove(served["url"], stormy)
    assert "Another process is writing the index" in status
    assert ("stormy.txt", "The stormy night sank three boats.") in found(client, "stormy night")

    assert "stormy.txt was removed." in remove(served["url"], stormy)
    upload(served["url"], ("breeze.txt", b"The breeze carried the gulls inland."))

    assert not stormy.exists()
    assert "stormy.txt" not in [name for name, _ in found(client, "stormy night boats")]
