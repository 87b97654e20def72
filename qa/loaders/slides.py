"""PowerPoint slides (.pptx), read with python-pptx: one page per slide, in slide order.

A slide's page holds its title, then the text of its other shapes in their order on the
slide (text boxes, placeholders, grouped shapes), each table row through
`qa.loaders.tables.table_lines` (captioned by the slide title) and the speaker notes last, so
the slide number is the page a citation gives. A paragraph the slide shows with a bullet
(in a content placeholder unless it says "no bullet", anywhere when it sets one) is a
list item, "- " indented by its level, as it would be written in Markdown: the points
under a slide's title are a list that `qa.answering.lists` can give whole.
"""

import io
from collections.abc import Iterator

from qa.loaders.base import Loaded, Reading, TextBudget, join_pages
from qa.loaders.tables import table_lines


def load_pptx(data: bytes, reading: Reading) -> Loaded:
    from pptx import Presentation

    presentation = Presentation(io.BytesIO(data))
    read: dict[int, str] = {}  # each slide part's text, by the part's id
    pages = []
    for slide in presentation.slides:  # a part may be listed as many slides: read it once
        if id(slide.part) in read:
            pages.append(reading.budget.add(read[id(slide.part)]))
        else:
            pages.append(read.setdefault(id(slide.part), _slide_text(slide, reading.budget)))
    title = presentation.core_properties.title or ""
    text, starts = join_pages(pages)
    return title, text, starts


def _slide_text(slide, budget: TextBudget) -> str:
    """The slide's title, shapes and notes, a paragraph each (a table's rows a line each),
    charged to the budget as they are read."""
    from pptx.enum.shapes import PP_PLACEHOLDER

    contents = (PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT)  # bulleted unless they say not
    heading = slide.shapes.title
    caption = budget.add(_text(heading.text_frame)) if heading is not None else ""
    parts = [caption]
    for shape in _shapes(slide.shapes):
        if heading is not None and shape.shape_id == heading.shape_id:
            continue
        if shape.has_text_frame:
            bulleted = shape.is_placeholder and shape.placeholder_format.type in contents
            parts.append(budget.add(_text(shape.text_frame, bulleted)))
        elif shape.has_table:
            rows = [[cell.text for cell in row.cells] for row in shape.table.rows]
            parts.append("\n".join(table_lines(rows[0], rows[1:], caption, budget=budget)
                                   if rows else []))
    if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
        parts.append(budget.add(_text(slide.notes_slide.notes_text_frame)))
    return "\n\n".join(part for part in parts if part)


def _text(frame, bulleted: bool = False) -> str:
    """A text frame's paragraphs a line each (python-pptx gives a line break as \\v), those
    shown with a bullet as list items (`bulleted`: the frame's paragraphs are by default)."""
    lines = []
    for paragraph in frame.paragraphs:
        line = paragraph.text.replace("\v", "\n").strip()
        if line and _has_bullet(paragraph, bulleted):
            line = "  " * paragraph.level + "- " + line
        lines.append(line)
    return "\n".join(lines).strip()


def _has_bullet(paragraph, default: bool) -> bool:
    """Whether the paragraph sets a bullet or number, or none; else `default`
    (python-pptx reads no bullets: its properties' XML does)."""
    from pptx.oxml.ns import qn

    properties = paragraph._p.pPr
    if properties is not None:
        if properties.find(qn("a:buNone")) is not None:
            return False
        if any(properties.find(qn(tag)) is not None for tag in ("a:buChar", "a:buAutoNum")):
            return True
    return default


def _shapes(shapes) -> Iterator:
    """The shapes on a slide, those inside groups included, in their order."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shapes(shape.shapes)
        else:
            yield shape
