"""Chunking: real sentence boundaries, the model's token budget, spans and overlap."""

import itertools

import pytest

from qa.indexing.chunking import BLOCK_CHARS, chunk_document, split_sentences
from qa.indexing.embedding import load_embedder
from qa.loaders.formats import Document
from tests.helpers import SEED_FILE


@pytest.fixture(scope="module")
def embedder():
    return load_embedder()


def test_abbreviations_and_quotes_do_not_end_sentences():
    text = SEED_FILE.read_text(encoding="utf-8")

    sentences = [text[a:b] for a, b in split_sentences(text)]

    first = sentences[0]
    assert "L.A. County Federation of Labor President Ron Herrera" in first
    assert first.endswith("in October 2021.")
    assert "Martinez and Herrera have since resigned." in sentences


def test_lines_of_labelled_fields_are_a_sentence_each():
    # minutes' header lines have no full stop: read as one sentence, a quote of who was
    # present would hold the date and the venue, and a label-less line after them
    text = ("**Date:** Thursday 12 September 2024, 12:45\n"
            "**Venue:** Surgery meeting room (others joined online)\n"
            "**Present:** Dr Helen Marsh (chair), Tom Weir, Imogen Tull, Callum Rees and "
            "Priya Dent, who took the minutes\n"
            "Apologies: Dr Lucy Farr\n\n"
            "Minutes of the previous meeting were accepted.")

    sentences = [text[a:b] for a, b in split_sentences(text)]

    assert sentences[:4] == text.split("\n\n")[0].split("\n")
    assert sentences[4] == "Minutes of the previous meeting were accepted."


def test_a_table_row_is_one_sentence_though_its_columns_are_years():
    row = "Income: Line: Total income; 2024-25 (£): 486,350; 2023-24 (£): 412,780."

    assert [row[a:b] for a, b in split_sentences(row)] == [row]


def test_chunks_fit_the_budget_and_keep_exact_spans(embedder):
    text = SEED_FILE.read_text(encoding="utf-8")
    document = Document(str(SEED_FILE), "", text)

    chunks = chunk_document(document, embedder.count_tokens, max_tokens=64, overlap_tokens=16)

    assert len(chunks) > 5
    for chunk in chunks:
        assert text[chunk.start:chunk.end] == chunk.text
        assert embedder.count_tokens([chunk.text])[0] <= 64
        for a, b in chunk.sentences:
            assert chunk.start <= a < b <= chunk.end
    assert chunks[0].start == 0
    assert chunks[-1].end == len(text.rstrip())


def test_neighbouring_chunks_overlap_by_whole_sentences(embedder):
    text = " ".join(f"Sentence number {i} talks about topic {i}." for i in range(40))
    document = Document("x.txt", "", text)

    chunks = chunk_document(document, embedder.count_tokens, max_tokens=40, overlap_tokens=12)

    for before, after in itertools.pairwise(chunks):
        assert after.sentences[0] in before.sentences
        assert after.sentences[-1] not in before.sentences


def test_a_sentence_longer_than_the_budget_is_cut_not_truncated(embedder):
    text = " ".join(["word"] * 500)
    document = Document("x.txt", "", text)

    chunks = chunk_document(document, embedder.count_tokens, max_tokens=50, overlap_tokens=0)

    assert all(embedder.count_tokens([c.text])[0] <= 50 for c in chunks)
    assert sum(c.text.count("word") for c in chunks) == 500


def test_chunks_do_not_cross_pages(embedder):
    text = "Page one says hello.\n\nPage two says goodbye."
    document = Document("x.pdf", "", text, page_starts=(0, 22))

    chunks = chunk_document(document, embedder.count_tokens, max_tokens=100, overlap_tokens=0)

    assert [(c.text, c.page) for c in chunks] == [
        ("Page one says hello.", 1), ("Page two says goodbye.", 2)
    ]


def test_a_long_text_has_the_sentences_of_its_paragraphs_across_blocks():
    """syntok is given the text a block at a time; no sentence may change at a block's edge."""
    paragraphs = [f"Paragraph {i} opens here. Dr. Watson wrote {i} letters to L.A. friends. "
                  f"It ends with a question?" for i in range(2_000)]
    text = "\n\n".join(paragraphs)
    assert len(text) > 2 * BLOCK_CHARS

    expected, offset = [], 0
    for paragraph in paragraphs:
        expected += [(offset + a, offset + b) for a, b in split_sentences(paragraph)]
        offset += len(paragraph) + 2

    assert split_sentences(text) == expected
    assert len(expected) == 3 * len(paragraphs)


def test_words_on_lines_of_their_own_are_never_cut_in_two(embedder):
    words = [f"entry{i}" for i in range(3_000)]  # no full stop: one over-long "sentence"
    text = "\n".join(words)
    document = Document("x.txt", "", text)

    chunks = chunk_document(document, embedder.count_tokens, max_tokens=100, overlap_tokens=0)

    assert all(embedder.count_tokens([c.text])[0] <= 100 for c in chunks)
    assert all(text[c.start:c.end] == c.text == c.text.strip() for c in chunks)
    assert "\n".join(c.text for c in chunks).split() == words


@pytest.mark.heavy
def test_a_single_line_of_300_kb_is_cut_into_chunks_that_fit_and_cover_it(embedder):
    words = [f"word{i % 997}" for i in range(50_000)]
    text = " ".join(words)
    document = Document("x.txt", "", text)

    chunks = chunk_document(document, embedder.count_tokens, max_tokens=100, overlap_tokens=0)

    assert all(embedder.count_tokens([c.text])[0] <= 100 for c in chunks)
    assert all(text[c.start:c.end] == c.text for c in chunks)
    assert " ".join(c.text for c in chunks).split() == words
