"""Settings are validated with messages that say what is wrong."""

import pytest

from qa import QAError, Settings


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("chunk_tokens", 8, "chunk_tokens must be at least 16, got 8"),
        ("overlap_tokens", 150, r"overlap_tokens must be between 0 and half of chunk_tokens"),
        ("k", 0, "k must be at least 1, got 0"),
        ("min_score", 1.5, "min_score must be between 0 and 1, got 1.5"),
        ("batch_size", 0, "batch_size must be at least 1, got 0"),
        ("model", "  ", "model must name a sentence-transformers model"),
    ],
)
def test_bad_settings_are_refused(field, value, message):
    with pytest.raises(QAError, match=message):
        Settings(**{field: value})
