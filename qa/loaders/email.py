"""E-mail: one message (.eml) or a mailbox of them (.mbox), read with the standard
library's email and mailbox modules.

A message reads as its subject, sender, recipients and date (a line each), then its body
(the plain-text part, else the HTML part's text). Each attachment of a supported type is
read by its own loader and follows under an "Attachment: name" line, so a question about
an attached report finds it, cited to the message; other attachments are skipped with a
logged line saying so. In a mailbox each message is a page, so the message's number is
the page a citation gives.
"""

import logging
import mailbox
import tempfile
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from qa.errors import LoadError, Postponed
from qa.loaders.base import Loaded, Reading, join_pages
from qa.loaders.html import all_text

log = logging.getLogger(__name__)
_HEADERS = ("Subject", "From", "To", "Cc", "Date")


def load_eml(data: bytes, reading: Reading) -> Loaded:
    message = BytesParser(policy=policy.default).parsebytes(data)
    return str(message["subject"] or ""), _message_text(message, reading), ()


def load_mbox(data: bytes, reading: Reading) -> Loaded:
    """Each message of the mailbox a page (mailbox reads from a file, so `data` is
    written to a temporary one first)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "mailbox")
        path.write_bytes(data)
        parse = BytesParser(policy=policy.default).parse
        box = mailbox.mbox(path, factory=parse, create=False)  # type: ignore[arg-type]
        pages = [_message_text(message, reading) for message in box]  # type: ignore[arg-type]
        box.close()
    if not pages:
        raise LoadError("no messages in this mailbox (an mbox starts each with a From line)")
    text, starts = join_pages(pages)
    return "", text, starts


def _message_text(message: EmailMessage, reading: Reading) -> str:
    """The message's headers, body and readable attachments, as one text."""
    lines = [f"{name}: {message[name]}" for name in _HEADERS if message[name]]
    parts = [reading.budget.add("\n".join(lines))]
    body = message.get_body(preferencelist=("plain", "html"))
    if body is not None:
        content = body.get_content()
        parts.append(reading.budget.add(
            all_text(content) if body.get_content_subtype() == "html" else content))
    subject = str(message["subject"] or "")
    parts.extend(_attachment_text(part, subject, reading) for part in message.iter_attachments())
    return "\n\n".join(part.strip() for part in parts if part and part.strip())


def _attachment_text(part: EmailMessage, subject: str, reading: Reading) -> str:
    """An attachment's text under an "Attachment: name" line, or "" if it has none that can
    be read (logged with the message's subject, as the loader does not know the file).
    An attachment skipped gives back the text it was charged, as it adds none."""
    name = part.get_filename() or "(no name)"
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        log.warning("attachment %s of the e-mail %r skipped: it has no content", name, subject)
        return ""
    charged = reading.budget.used
    try:
        _, text, _ = reading.read_inner(Path(name), payload, reading)
        if not text.strip():
            raise LoadError("no text to index")
    except Postponed:
        raise  # the whole e-mail waits for the next run
    except LoadError as error:
        reading.budget.used = charged
        log.warning("attachment %s of the e-mail %r skipped: %s", name, subject, error)
        return ""
    return f"Attachment: {name}\n\n{text}"
