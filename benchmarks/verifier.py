"""Fit the verifier (`qa.answering.verifier`) to SQuAD 2.0, seeded, and report it per epoch.

The verifier reads a question and one sentence and scores whether the sentence answers
it. It is the shipped reader with a low-rank change (LoRA) to the weight matrices of its
six layers and a scoring layer on [CLS] that starts as the reader's no-answer score,
negated; only the low-rank factors and the scoring layer are trained and shipped.

Pairs, from every article the reader was trained on (never fold 0, `--hold-out-fold`):
  answers         an answerable question and the sentence holding its gold answer;
  other sentence  ... and its paragraph's other sentence sharing most of its rare words;
  unanswerable    SQuAD's unanswerable question and the sentence of its plausible answer
                  (or the one sharing most of its words);
  near miss       an answerable question whose rarest word that its sentence holds is
                  swapped for a word of the same shape (number, name, word) that the
                  article holds and the sentence does not, with that sentence: "the Tern's
                  master" asked of a sentence naming the Corrie Belle's.
And, with `--office`, the same four kinds made from office folders and their questions
(`benchmarks/office_pairs.py`: rows, short lines and clauses, and their near misses:
another branch's or another year's figure), each repeated `--office-weight` times; the
folders named by `--office-hold-out` are left out of training and reported instead.
Only "answers" are labelled answering; each label weighs half. After each epoch the held-out
pairs are scored: the AUC of answers against each kind of negative.

The run is resumable: every `--checkpoint-every` steps and after each epoch the trained
factors, the optimizer, the schedule and the random state go to WORKDIR/checkpoint.pt,
and the same command started again goes on from there, taking the same steps as a run
never stopped (a checkpoint made with other settings is refused, not mixed in).

    .venv/bin/python benchmarks/verifier.py --workdir /tmp/verifier [--epochs 3] [--write]
        [--office benchmarks/office_pairs.json [--office-hold-out blind5,blind6]]
"""

import argparse
import copy
import json
import math
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qa.answering import verifier  # noqa: E402
from qa.answering.reader import shipped  # noqa: E402
from qa.evaluation.squad import READER_FOLDS, fold_of  # noqa: E402
from qa.indexing.chunking import split_sentences  # noqa: E402
from qa.words import STOPWORDS  # noqa: E402

SQUAD = ROOT.parent / "shared" / "datasets" / "squad"
TRAIN_FILES = [SQUAD / "squad2-train-10articles.json", SQUAD / "squad2-dev-15articles.json"]
WORD = re.compile(r"\w+")
KINDS = ("answers", "other sentence", "unanswerable", "near miss")
LORA_RANK = 8
# the weight matrices of each layer that the low-rank change is made to
CHANGED = ("attention.self.query", "attention.self.key", "attention.self.value",
           "attention.output.dense", "intermediate.dense", "output.dense")


@dataclass(frozen=True, slots=True)
class Pair:
    article: str
    kind: str  # one of KINDS
    question: str
    sentence: str

    @property
    def label(self) -> bool:
        return self.kind == "answers"


def load_articles(paths: list[Path]) -> dict[str, list[dict]]:
    articles: dict[str, list[dict]] = {}
    for path in paths:
        for article in json.loads(path.read_text(encoding="utf-8"))["data"]:
            articles[article["title"]] = article["paragraphs"]
    return articles


def pairs_of(title: str, paragraphs: list[dict], rng: random.Random) -> list[Pair]:
    """The four kinds of pairs (see the module's docstring) of one article."""
    sentences = [[(s, e, p["context"][s:e]) for s, e in split_sentences(p["context"])]
                 for p in paragraphs]
    frequency, shapes = vocabulary([p["context"] for p in paragraphs])
    found = []
    for paragraph, spans in zip(paragraphs, sentences, strict=True):
        for qa in paragraph["qas"]:
            question = qa["question"]
            answers = qa["answers"] or qa.get("plausible_answers") or []
            held = [text for s, e, text in spans
                    if answers and s <= answers[0]["answer_start"] < e]
            best = held[0] if held else most_shared(question, [t for *_, t in spans],
                                                    frequency)
            if best is None:
                continue
            if qa.get("is_impossible") or not qa["answers"]:
                found.append(Pair(title, "unanswerable", question, best))
                continue
            other = most_shared(question, [t for *_, t in spans if t != best], frequency)
            found += answered_pairs(title, question, best, other, frequency, shapes, rng)
    return found


def vocabulary(texts: list[str]) -> tuple[Counter, dict[str, list[str]]]:
    """How often each word of the texts is used (lower-cased), and their words of more
    than two letters by shape, for near misses."""
    words = [w for text in texts for w in WORD.findall(text)]
    shapes: dict[str, list[str]] = {}
    for word in sorted(set(words)):
        if word.lower() not in STOPWORDS and len(word) > 2:
            shapes.setdefault(shape(word), []).append(word)
    return Counter(w.lower() for w in words), shapes


def answered_pairs(source: str, question: str, sentence: str, other: str | None,
                   frequency: Counter, shapes: dict[str, list[str]],
                   rng: random.Random) -> list[Pair]:
    """An answerable question's pairs: with the sentence answering it, with `other` (if
    any), and its near miss with that sentence (if one can be made)."""
    found = [Pair(source, "answers", question, sentence)]
    if other is not None:
        found.append(Pair(source, "other sentence", question, other))
    swapped = near_miss(question, sentence, frequency, shapes, rng)
    if swapped is not None:
        found.append(Pair(source, "near miss", swapped, sentence))
    return found


def shape(word: str) -> str:
    return "number" if word[0].isdigit() else "name" if word[0].isupper() else "word"


def most_shared(question: str, sentences: list[str], frequency: Counter) -> str | None:
    """The sentence sharing the most of the question's words, each weighted by rarity."""
    terms = {w.lower() for w in WORD.findall(question)} - STOPWORDS
    scored = [(sum(1 / frequency.get(t, 1) for t in terms
                   & {w.lower() for w in WORD.findall(s)}), s) for s in sentences]
    return max(scored)[1] if scored and max(scored)[0] > 0 else None


def near_miss(question: str, sentence: str, frequency: Counter,
              shapes: dict[str, list[str]], rng: random.Random) -> str | None:
    """The question with its rarest word that `sentence` holds swapped for another word of
    its shape that the article holds and the sentence does not (None: no such word)."""
    held = {w.lower() for w in WORD.findall(sentence)}
    named = [w for w in WORD.findall(question)
             if w.lower() in held and w.lower() not in STOPWORDS and len(w) > 2]
    if not named:
        return None
    rarest = min(named, key=lambda w: frequency.get(w.lower(), 0))
    choices = [w for w in shapes.get(shape(rarest), []) if w.lower() not in held]
    if not choices:
        return None
    return re.sub(rf"\b{re.escape(rarest)}\b", rng.choice(choices), question, count=1)


class LowRank(torch.nn.Module):
    """A linear layer whose weight is trained only through a low-rank change B @ A
    (`qa.answering.verifier` merges it into the weight when it loads)."""

    def __init__(self, base: torch.nn.Linear, rank: int, generator: torch.Generator) -> None:
        super().__init__()
        self.base = base.requires_grad_(False)
        self.a = torch.nn.Parameter(torch.randn(rank, base.in_features, generator=generator)
                                    / math.sqrt(base.in_features))
        self.b = torch.nn.Parameter(torch.zeros(base.out_features, rank))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + verifier.LORA_SCALE * ((x @ self.a.T) @ self.b.T)


def trainable(seed: int) -> tuple[verifier.Verifier, dict[str, LowRank]]:
    """A verifier over the shipped reader with every CHANGED matrix made `LowRank`, and its
    scoring layer set to the reader's "answer here" score at [CLS] (minus no-answer)."""
    reader = shipped()
    encoder = copy.deepcopy(reader.model.bert).requires_grad_(False)
    generator = torch.Generator().manual_seed(seed)
    changed = {}
    for i, layer in enumerate(encoder.encoder.layer):
        for name in CHANGED:
            parent, _, child = name.rpartition(".")
            owner = layer.get_submodule(parent)
            changed[f"encoder.layer.{i}.{name}"] = LowRank(getattr(owner, child),
                                                           LORA_RANK, generator)
            setattr(owner, child, changed[f"encoder.layer.{i}.{name}"])
    qa_outputs = reader.model.qa_outputs
    head = torch.nn.Linear(qa_outputs.in_features, 1)
    with torch.no_grad():
        head.weight.copy_(-qa_outputs.weight.sum(dim=0, keepdim=True))
        head.bias.copy_(-qa_outputs.bias.sum().reshape(1))
    model = verifier.Verifier(encoder, head, reader.tokenizer, reader.precision)
    return model, changed


def save(model: verifier.Verifier, changed: dict[str, LowRank], path: Path) -> None:
    """The low-rank factors and the scoring layer, as float16."""
    from safetensors.torch import save_file

    weights = {f"lora.{name}.{factor}": getattr(module, factor)
               for name, module in changed.items() for factor in ("a", "b")}
    weights |= {f"head.{key}": value for key, value in model.head.state_dict().items()}
    save_file({key: value.detach().to(torch.float16).contiguous()
               for key, value in weights.items()}, str(path))


def encoded_batches(model: verifier.Verifier, pairs: list[Pair], size: int,
                    rng: random.Random | None = None,
                    ) -> list[tuple[dict, torch.Tensor, list[int]]]:
    """The pairs as model inputs in batches of similar length (shuffled when `rng`)."""
    order = list(range(len(pairs)))
    if rng is not None:
        rng.shuffle(order)
    groups = [sorted(order[i:i + size * 50], key=lambda j: len(pairs[j].sentence))
              for i in range(0, len(order), size * 50)]
    found = []
    for group in groups:
        for start in range(0, len(group), size):
            chunk = [pairs[j] for j in group[start:start + size]]
            found.append((model.encode([p.question for p in chunk], [p.sentence for p in chunk]),
                          torch.tensor([float(p.label) for p in chunk]), group[start:start + size]))
    if rng is not None:
        rng.shuffle(found)
    return found


def scores_of(model: verifier.Verifier, pairs: list[Pair]) -> np.ndarray:
    model.encoder.eval()
    scores = np.zeros(len(pairs))
    with torch.inference_mode():
        for encoded, _, where in encoded_batches(model, pairs, 128):
            scores[where] = model.logits(encoded).numpy()
    model.encoder.train()
    return scores


def auc(positives: np.ndarray, negatives: np.ndarray) -> float:
    if not len(positives) or not len(negatives):
        return float("nan")
    ranks = np.argsort(np.argsort(np.concatenate([positives, negatives]))) + 1
    return float((ranks[:len(positives)].sum() - len(positives) * (len(positives) + 1) / 2)
                 / (len(positives) * len(negatives)))


def report(pairs: list[Pair], scores: np.ndarray) -> dict[str, float]:
    kinds = np.array([p.kind for p in pairs])
    positives = scores[kinds == "answers"]
    return {kind: round(auc(positives, scores[kinds == kind]), 3) for kind in KINDS[1:]}


def held_out(model: verifier.Verifier, tests: dict[str, list[Pair]]) -> str:
    """The AUCs of each held-out set with pairs, as JSON."""
    return json.dumps({name: report(pairs, scores_of(model, pairs))
                       for name, pairs in tests.items() if pairs})


class Checkpoint:
    """Where a run stands (epoch, batch, losses so far, time spent) with everything its
    next step depends on, kept in WORKDIR/checkpoint.pt."""

    def __init__(self, workdir: Path, settings: dict) -> None:
        self.path, self.settings = workdir / "checkpoint.pt", settings

    def load(self, trained: list[torch.nn.Parameter], optimizer: torch.optim.Optimizer,
             scheduler: torch.optim.lr_scheduler.LRScheduler) -> dict | None:
        """The saved position, with the parameters, optimizer, schedule and random state
        restored (None: nothing saved yet)."""
        if not self.path.exists():
            return None
        state = torch.load(self.path, weights_only=False)
        if state["settings"] != self.settings:
            sys.exit(f"{self.path} was made with other settings ({state['settings']}); "
                     "use another --workdir or delete it")
        with torch.no_grad():
            for parameter, saved in zip(trained, state["trained"], strict=True):
                parameter.copy_(saved)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["rng"])
        return state["position"]

    def save(self, position: dict, trained: list[torch.nn.Parameter],
             optimizer: torch.optim.Optimizer,
             scheduler: torch.optim.lr_scheduler.LRScheduler) -> None:
        """Written beside, then renamed: a run stopped while saving keeps the last one."""
        partial = self.path.with_suffix(".partial")
        torch.save({"settings": self.settings, "position": position,
                    "trained": [p.detach().clone() for p in trained],
                    "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                    "rng": torch.get_rng_state()}, partial)
        partial.replace(self.path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--hold-out-fold", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--office", type=Path, help="pairs of benchmarks/office_pairs.py")
    parser.add_argument("--office-hold-out", default="", help="folders reported, not trained on")
    parser.add_argument("--office-weight", type=int, default=8, help="times each is trained on")
    parser.add_argument("--checkpoint-every", type=int, default=100, help="steps")
    parser.add_argument("--write", action="store_true",
                        help=f"write the last epoch's weights to {verifier.WEIGHTS_FILE.name}")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    articles = load_articles(TRAIN_FILES)
    held = {t for t in articles if t in load_articles(TRAIN_FILES[1:])
            and fold_of(t, READER_FOLDS) == args.hold_out_fold}
    train = [p for t, ps in articles.items() if t not in held for p in pairs_of(t, ps, rng)]
    tests = {"squad": [p for t in sorted(held) for p in pairs_of(t, articles[t], rng)]}
    if args.office:
        office = [Pair(**pair) for pair in json.loads(args.office.read_text(encoding="utf-8"))]
        kept = set(args.office_hold_out.split(",")) if args.office_hold_out else set()
        train += [p for p in office if p.article not in kept] * args.office_weight
        tests["office"] = [p for p in office if p.article in kept]
    print(f"{len(train)} training pairs {dict(Counter(p.kind for p in train))}; held out: "
          f"{ {name: len(pairs) for name, pairs in tests.items()} } ({sorted(held)})",
          flush=True)
    model, changed = trainable(args.seed)
    trained = [p for module in changed.values() for p in (module.a, module.b)]
    trained += list(model.head.parameters())
    optimizer = torch.optim.AdamW(trained, lr=args.lr, weight_decay=0.01)
    steps = math.ceil(len(train) / args.batch) * args.epochs
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / (0.1 * steps), max(0.0, (steps - s) / (0.9 * steps))))
    checkpoint = Checkpoint(args.workdir, {key: str(value) for key, value in vars(args).items()
                                           if key not in ("workdir", "write")})
    position = checkpoint.load(trained, optimizer, scheduler)
    if position is None:
        position = {"epoch": 0, "batch": 0, "losses": [], "wall": 0.0, "cpu": 0.0}
        print(f"before training: {held_out(model, tests)}", flush=True)
    else:
        print(f"resumed at epoch {position['epoch'] + 1}, batch {position['batch']}", flush=True)
    started = time.time() - position["wall"]
    cpu = time.process_time() - position["cpu"]

    def keep() -> None:
        position.update(wall=time.time() - started, cpu=time.process_time() - cpu)
        checkpoint.save(position, trained, optimizer, scheduler)

    positives = sum(p.label for p in train)
    weight = {True: 0.5 * len(train) / positives,
              False: 0.5 * len(train) / (len(train) - positives)}
    model.encoder.train()
    for epoch in range(position["epoch"], args.epochs):
        losses = position["losses"]
        batches = encoded_batches(model, train, args.batch,
                                  random.Random(args.seed * 1000 + epoch))
        for encoded, labels, _ in batches[position["batch"]:]:
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                model.logits(encoded), labels,
                weight=torch.tensor([weight[bool(label)] for label in labels]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trained, 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            losses.append(loss.item())
            position["batch"] = len(losses)
            if len(losses) % 100 == 0:
                print(f"  {len(losses)} steps, loss {np.mean(losses[-100:]):.3f}, "
                      f"{time.time() - started:.0f} s wall, "
                      f"{time.process_time() - cpu:.0f} CPU-s", flush=True)
            if len(losses) % args.checkpoint_every == 0:
                keep()
        print(f"epoch {epoch + 1}: loss {np.mean(losses):.3f}; held-out AUC "
              f"{held_out(model, tests)}; {time.time() - started:.0f} s wall, "
              f"{time.process_time() - cpu:.0f} CPU-s", flush=True)
        save(model, changed, args.workdir / f"epoch{epoch + 1}.safetensors")
        position.update(epoch=epoch + 1, batch=0, losses=[])
        keep()
    if args.write:
        save(model, changed, verifier.WEIGHTS_FILE)
        print(f"wrote {verifier.WEIGHTS_FILE} "
              f"({verifier.WEIGHTS_FILE.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
