"""The language model chosen while the app runs, kept in the index folder across restarts.

`llm.json` in the index folder holds the server's API base, the model and its key (or
that no model is wanted), readable by its owner only (0600: the key is a secret), and
is replaced whole (a temporary file renamed over it), so a crash leaves the old
settings or the new, never half of either.

Precedence: settings saved here win over those given at start (QA_LLM_* or --llm-*),
which apply only while nothing was saved; deleting the file returns to them. The
timeouts and the answer length are not saved: they always come from the start.
"""

import json
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from qa.errors import QAError
from qa.llm.client import NO_KEY, LLMConfig

SAVED_LLM = "llm.json"


@dataclass(frozen=True, slots=True)
class ChosenLLM:
    """The model in use (None: answers quote the documents) and where the choice came from."""

    config: LLMConfig | None
    saved: bool  # from SAVED_LLM; else from the start's options (or nothing)

    def describe(self) -> str:
        """One line for the log: which model, from where (never the key)."""
        model = (f"language model {self.config.model} at {self.config.base_url}"
                 if self.config else "no language model (answers quote the documents)")
        if self.saved:
            return (f"{model}, as saved from the page in {SAVED_LLM} in the index folder; "
                    "it wins over QA_LLM_* and --llm-* (delete the file to use those)")
        if self.config:
            return f"{model}, from QA_LLM_* or --llm-* (none saved from the page)"
        return f"{model}: none given with QA_LLM_* or --llm-*, none saved from the page"


def with_server(start: LLMConfig | None, base_url: str, model: str, api_key: str | None
                ) -> LLMConfig:
    """A model chosen while running, with the start's timeouts and answer length."""
    if not model.strip():
        raise QAError("choose a model")
    key = api_key or NO_KEY
    if start is None:
        return LLMConfig(base_url, model.strip(), key)
    return replace(start, base_url=base_url, model=model.strip(), api_key=key)


def choose_llm(index_dir: Path, start: LLMConfig | None) -> ChosenLLM:
    """The saved choice if there is one, else `start`; QAError if the saved file is
    unreadable."""
    path = index_dir / SAVED_LLM
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ChosenLLM(start, saved=False)
    except (OSError, ValueError) as error:
        raise QAError(f"cannot read the saved language model settings {path}: {error}"
                      ) from error
    if not isinstance(saved, dict) or not (saved.get("model") is None or all(
            isinstance(saved.get(field), str) for field in ("base_url", "model", "api_key"))):
        raise QAError(f"the saved language model settings {path} are not settings qa wrote")
    if saved["model"] is None:
        return ChosenLLM(None, saved=True)
    return ChosenLLM(with_server(start, saved["base_url"], saved["model"], saved["api_key"]),
                     saved=True)


def save_llm(index_dir: Path, config: LLMConfig | None) -> None:
    """Keep `config`'s server, model and key (None: no model) for the next start."""
    fields = ({"base_url": config.base_url, "model": config.model, "api_key": config.api_key}
              if config else {"model": None})
    descriptor, temporary = tempfile.mkstemp(dir=index_dir, prefix=".llm-", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:  # mkstemp: mode 0600
            json.dump(fields, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, index_dir / SAVED_LLM)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
