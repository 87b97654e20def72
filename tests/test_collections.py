"""Collections: named groups of documents to ask within, from Python and the CLI."""

import stat
from contextlib import closing

import pytest

from qa import Index, QAError
from qa.cli import main

HARBOUR = "The harbour of Port Ellen reopened in 1999 after the storm damaged its piers."
ORCHARD = "The orchard at Kelso grows forty varieties of apples, picked in October."
RECIPES = "A good apple crumble needs cold butter, oats and a hot oven."


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """Two folders indexed into two collections, and one document in none."""
    root = tmp_path_factory.mktemp("library")
    for folder, name, text in (("news", "harbour.txt", HARBOUR), ("farm", "orchard.txt", ORCHARD),
                               ("kitchen", "crumble.txt", RECIPES)):
        (root / folder).mkdir()
        (root / folder / name).write_text(text)
    index = Index.create(root / "index")
    index.add([root / "news"], collection="News")
    index.add([root / "farm"], collection="Farm")
    index.add([root / "kitchen"])
    yield root, index
    index.close()


def _sources(hits) -> set[str]:
    return {hit.source.rsplit("/", 1)[-1] for hit in hits}


def test_a_question_within_a_collection_finds_only_its_documents(library):
    _, index = library

    assert _sources(index.search("apples", k=10, collections=["News"])) == {"harbour.txt"}
    answer = index.ask("When did the harbour reopen?", collections=["Farm"])
    assert not answer.found or "harbour" not in answer.text
    assert "1999" in index.ask("When did the harbour reopen?", collections=["News"]).text


def test_several_collections_and_chosen_documents_add_up(library):
    root, index = library

    hits = index.search("apples harbour crumble", k=10, collections=["News", "Farm"])
    assert _sources(hits) == {"harbour.txt", "orchard.txt"}
    hits = index.search("apples harbour crumble", k=10, collections=["News"],
                        within=[root / "kitchen"])
    assert _sources(hits) == {"harbour.txt", "crumble.txt"}
    assert _sources(index.search("apples harbour crumble", k=10)) == {
        "harbour.txt", "orchard.txt", "crumble.txt"}


def test_renaming_deleting_and_unknown_collections(tmp_path, seed_copy):
    index = Index.build([seed_copy], path=tmp_path / "index")
    collections = index.collections
    collections.create("Council")
    collections.add("Council", index.documents_under([seed_copy]))

    assert collections.rename("Council", "City council") == "City council"
    assert collections.counts() == {"City council": 1}
    with pytest.raises(QAError, match="there is no collection named 'Council'"):
        index.search("resigned", collections=["Council"])
    with pytest.raises(QAError, match="already a collection named 'City council'"):
        collections.create("City council")
    with pytest.raises(QAError, match="a collection name is 1 to 64"):
        collections.create("../etc")

    collections.delete("City council")
    assert collections.counts() == {}
    assert index.documents()  # the documents stay
    assert stat.S_IMODE((tmp_path / "index" / "collections.sqlite3").stat().st_mode) == 0o600


def test_a_removed_document_leaves_its_collections(tmp_path, seed_copy):
    index = Index.create(tmp_path / "index")
    index.add([seed_copy], collection="News")

    index.remove(seed_copy)

    assert index.collections.counts() == {"News": 0}


def test_the_cli_indexes_into_lists_and_asks_within_a_collection(tmp_path, seed_copy, capsys):
    (tmp_path / "farm").mkdir()
    (tmp_path / "farm" / "orchard.txt").write_text(ORCHARD)
    index = ["--index", str(tmp_path / "index")]
    assert main([*index, "index", str(seed_copy), "--collection", "News"]) == 0
    assert main([*index, "index", str(tmp_path / "farm")]) == 0
    assert main([*index, "collections", "add", "Farm", str(tmp_path / "farm")]) == 0
    capsys.readouterr()

    assert main([*index, "collections"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Farm\t1 document", "News\t1 document", "2 collections"]
    assert main([*index, "search", "apples", "--collection", "News", "--json"]) == 0
    assert "orchard" not in capsys.readouterr().out
    assert main([*index, "ask", "How many varieties of apples?", "--collection", "Farm"]) == 0
    assert "forty varieties" in capsys.readouterr().out
    assert main([*index, "collections", "delete", "Nope"]) == 2
    assert "there is no collection named 'Nope'" in capsys.readouterr().err


def test_documents_are_named_by_path_folder_or_a_file_name_only_one_has(tmp_path):
    """The one check of a scope, for the library, the CLI, MCP and the web chat alike."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.txt").write_text(f"Folder {folder} keeps these notes.")
    (tmp_path / "a" / "plan.txt").write_text("The plan is to sail at dawn.")
    with closing(Index.build([tmp_path / "a", tmp_path / "b"], tmp_path / "index")) as index:
        plan = str((tmp_path / "a" / "plan.txt").resolve())
        notes = str((tmp_path / "b" / "notes.txt").resolve())

        found = index.search("notes plan sail", k=10, within=["plan.txt", notes])
        assert {hit.source for hit in found} == {plan, notes}
        assert {hit.source for hit in index.search("notes", k=10, within="plan.txt")} == {plan}
        under_b = index.search("notes", k=10, within=[tmp_path / "b"])
        assert {hit.source for hit in under_b} == {notes}
        for within, error in [
            (["notes.txt"], "2 documents are named 'notes.txt': give the path"),
            (["nowhere.txt"], "no indexed document is at, under or named 'nowhere.txt'"),
            ([3], r"the documents \(or folders\) to ask within must be a list of names"),
            (["plan.txt"] * 1001, r"1,001 documents \(or folders\) are named; the limit is 1,000"),
        ]:
            with pytest.raises(QAError, match=error):
                index.search("notes", within=within)
        with pytest.raises(QAError, match="1,001 collections are named; the limit is 1,000"):
            index.ask("notes", collections=["x"] * 1001)
        with pytest.raises(QAError, match="there is no collection named 'News'"):
            index.ask("notes", collections="News")
