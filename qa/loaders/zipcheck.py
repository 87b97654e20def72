"""Zip-bomb limits for every zip-based format (.docx, .pptx, .xlsx, .ods, .odt, .epub).

The archive is opened and its declared sizes are checked before anything is unpacked:
a member that unpacks to more than MAX_RATIO times its packed size, or XML (and text)
that unpacks past MAX_UNPACKED_MB in all, is refused with one line. zipfile never
unpacks more than a member's declared size (and checks its CRC), so the declared sizes
can be trusted. A password-protected Office file is not a zip at all but an OLE
compound file wrapping the encrypted package; it is named as such.
"""

import io
import zipfile

from qa.errors import LoadError

MAX_UNPACKED_MB = 25  # unpacked XML; the XML parsers behind the loaders take ~10x in RAM
MAX_RATIO = 100  # unpacked / packed size of one member; office XML packs ~5-40x
_RATIO_FROM = 1_000_000  # members smaller than this unpack to little whatever the ratio
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def open_checked(data: bytes, kind: str) -> zipfile.ZipFile:
    """The zip archive in `data` after `check_unpacked_sizes`; LoadError (naming `kind`,
    as ".xlsx") if it is encrypted, damaged or no zip."""
    if data.startswith(_OLE_MAGIC):
        raise LoadError(f"password-protected {kind} file (or an old binary Office format); "
                        "save it without a password to index it")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as error:
        raise LoadError(f"not a valid {kind} file: {error}") from error
    check_unpacked_sizes(archive, kind)
    return archive


def check_unpacked_sizes(archive: zipfile.ZipFile, kind: str) -> None:
    """Refuse a zip bomb before anything is unpacked (LoadError naming `kind`).

    The parsers find parts through a manifest, whatever their names, so the total counts
    what is named XML and whatever packs as text does (compressed images pack by a few
    percent)."""
    members = archive.infolist()
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > _RATIO_FROM and ratio > MAX_RATIO:
            raise LoadError(
                f"{member.filename} in this {kind} unpacks to {ratio:.0f} times its packed "
                f"size ({member.file_size / 1e6:.1f} MB), a zip bomb; the limit is "
                f"{MAX_RATIO} times")
    xml = sum(m.file_size for m in members if m.filename.endswith((".xml", ".rels"))
              or m.file_size > 1.25 * m.compress_size)
    if xml > MAX_UNPACKED_MB * 1e6:
        raise LoadError(f"the XML in this {kind} unpacks to {xml / 1e6:.1f} MB; the limit "
                        f"is {MAX_UNPACKED_MB} MB")
