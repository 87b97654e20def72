"""Images and receipts: OCR'd lines stay lines (a receipt's item and its price at the far
right are one line), a short line-structured text is split so each line is a sentence a
question can quote, and a picture's title is its first line of words."""

from pathlib import Path

import pytest

from qa.indexing.chunking import split_sentences
from qa.loaders.ocr import content_title, lines

RECEIPT = [("HARBOUR CAFE", ""), ("12 Quay Street, Fenwick", ""), ("Flat white", "3.20"),
           ("Cheese scone", "2.80"), ("Tomato soup", "4.50"), ("TOTAL", "10.50"),
           ("Thank you for visiting", "")]


def _box(left: float, top: float, width: float, text: str):
    bottom = top + 22
    return [[left, top], [left + width, top], [left + width, bottom], [left, bottom]], text


def test_boxes_on_one_line_are_joined_left_to_right_and_lines_top_to_bottom():
    boxes = [_box(380, 92, 50, "2.80"), _box(20, 20, 160, "HARBOUR CAFE"),
             _box(20, 90, 150, "Cheese scone"), _box(381, 56, 50, "3.20"),
             _box(21, 55, 120, "Flat white")]

    assert lines(boxes) == ["HARBOUR CAFE", "Flat white 3.20", "Cheese scone 2.80"]


@pytest.mark.parametrize(("text", "title"), [
    ("HARBOUR CAFE\nFlat white 3.20", "HARBOUR CAFE"),
    ("#12\n14/03\nCar park closed\nfrom 2 June", "Car park closed"),
    ("12 34\n5.60", ""),
])
def test_a_pictures_title_is_its_first_line_of_words(text, title):
    assert content_title(text) == title


@pytest.mark.parametrize(("text", "sentences"), [
    ("HARBOUR CAFE\nFlat white 3.20\nCheese scone 2.80\nTOTAL 6.00",
     ["HARBOUR CAFE", "Flat white 3.20", "Cheese scone 2.80", "TOTAL 6.00"]),
    ("Agreed:\n- Repaint the harbour office before Easter and the summer\n- Buy two buoys",
     ["Agreed:", "Repaint the harbour office before Easter and the summer", "Buy two buoys"]),
    ("Actions:\n* Order the buoys\n\n2. Paint the shed", ["Actions:", "Order the buoys",
                                                          "2. Paint the shed"]),
    ("CAR PARK CLOSED\nFrom 2 to 6 June\nfor resurfacing, so please\nuse Brook Road.",
     ["CAR PARK CLOSED", "From 2 to 6 June\nfor resurfacing, so please\nuse Brook Road."]),
    ("Passwords must be at least fourteen characters long. They are changed only when "
     "there\nis a sign that one has leaked.",
     ["Passwords must be at least fourteen characters long.",
      "They are changed only when there\nis a sign that one has leaked."]),
])
def test_short_lines_and_list_items_are_sentences_and_wrapped_prose_is_not(text, sentences):
    assert [text[a:b] for a, b in split_sentences(text)] == sentences


def _receipt_image(path: Path) -> Path:
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=22)
    picture = Image.new("RGB", (480, 40 + 34 * len(RECEIPT)), "white")
    draw = ImageDraw.Draw(picture)
    for i, (item, price) in enumerate(RECEIPT):
        draw.text((20, 20 + 34 * i), item, fill="black", font=font)
        if price:
            draw.text((380, 20 + 34 * i), price, fill="black", font=font)
    picture.save(path)
    return path


@pytest.fixture(scope="module")
def receipt_index(tmp_path_factory):
    from qa import Index

    folder = tmp_path_factory.mktemp("docs")
    _receipt_image(folder / "IMG_2231.png")
    (folder / "menu.md").write_text(
        "# Cafe menu\n\nThe staff cafe serves coffee, soup and scones every weekday. A flat "
        "white costs less for staff than for visitors.\n", encoding="utf-8")
    index = Index.build([folder], path=tmp_path_factory.mktemp("index") / "index")
    yield index
    index.close()


def test_a_photographed_receipt_is_found_by_its_lines_and_titled_by_its_shop(receipt_index):
    titles = {Path(d.path).name: d.title for d in receipt_index.documents()}
    total = receipt_index.ask("What was the total on the Harbour Cafe receipt?")
    address = receipt_index.ask("What is the address of the Harbour Cafe?")

    assert titles["IMG_2231.png"] == "HARBOUR CAFE"
    assert total.citations[0].quote == "TOTAL 10.50"
    assert Path(total.citations[0].hit.source).name == "IMG_2231.png"
    assert address.citations[0].quote == "12 Quay Street, Fenwick"  # an address line is data


def test_a_receipt_line_answers_what_an_item_cost(receipt_index):
    answer = receipt_index.ask("How much was the flat white on the Harbour Cafe receipt?")

    assert answer.citations[0].quote == "Flat white 3.20"
