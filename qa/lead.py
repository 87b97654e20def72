"""The answer first: the value or the verdict a question asks for, taken from the quote.

A quoted answer opens with what a careful reader would say first, when the question asks
for it and the quote holds it:

- a yes/no question ("Did the forklifts pass their brake test?") gets "Yes" when the quote
  holds what was asked and is not negated, "No" when it negates it ("failed", "may not",
  "closed", "unpaid", "must be accompanied" for "on their own": a negation, or an
  opposite), or allows only some ("Only staff who...") what the question asks of any,
  and otherwise says the documents do not say yes or no; a quote that limits a quantity
  ("cools for at least 36 hours") answers No to a question beyond the limit ("after 20
  hours?") and Yes to one within it;
- a "how many / how much / what percentage" question gets the number with its unit
  ("80 spaces", "£1,200", "12%"), a "when" question the date or time, a "who" question
  the name, a "where" question the place, and a question about a table row the cell of
  the column it names ("What is the extension of the Finance team?": "2202"). A question
  for the largest, a total or a difference gets no lead here: one row does not answer it
  (`qa` computes such answers from the whole table, or says nothing first).

Every word of a value is taken verbatim from the quote, so the first sentence is as
traceable as the quote it comes from; a question of another kind, or a quote without such
a value, gets no lead. Plain rules on words, each tested on hand-written sentences.
"""

import re

from qa.loaders.tables import row_fields
from qa.question_kinds import STOPWORDS, WORD, content_words, negated
from qa.stemming import index_term

NO_VERDICT = "The documents do not say yes or no; they say:"
# words and their opposites, by stem: a quote holding the opposite of a word the question
# asks about answers it "no" ("open" / "closed")
_PAIRS = (
    ("open", "closed"), ("open", "shut"), ("pass", "failed"), ("allowed", "forbidden"),
    ("allowed", "prohibited"), ("allowed", "banned"), ("permitted", "forbidden"),
    ("permitted", "prohibited"), ("accepted", "rejected"), ("won", "lost"),
    ("increased", "decreased"), ("rose", "fell"), ("included", "excluded"),
    ("approved", "rejected"), ("succeeded", "failed"), ("present", "absent"),
    ("available", "unavailable"), ("alone", "accompanied"), ("own", "accompanied"),
    ("alone", "escorted"), ("own", "escorted"), ("unaccompanied", "accompanied"),
    ("free", "charged"), ("free", "paid"), ("true", "false"), ("alive", "dead"),
    ("public", "private"), ("required", "optional"), ("mandatory", "optional"),
)
OPPOSITES: dict[str, set[str]] = {}
for _pair in _PAIRS:
    _a, _b = (index_term(word) for word in _pair)
    OPPOSITES.setdefault(_a, set()).add(_b)
    OPPOSITES.setdefault(_b, set()).add(_a)

_YES_NO = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|must)"
    r"\b(?!.*\bor\b)", re.I)
_NUMBER_WORDS = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
                 r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
                 r"fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen")
_NUMBER = re.compile(
    r"(?:[£$€¥]\s?)?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?%|\s?(?:percent|per cent))?"
    rf"|\b(?:(?:{_NUMBER_WORDS})(?:[- ](?:{_NUMBER_WORDS}))*)\b", re.I)
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_DATE = re.compile(  # a date or time that says which: a day, a month and year, an hour
    rf"\b(?:{_DAY},?\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+\d{{4}})?"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|{_MONTH}\s+\d{{4}}"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}/\d{{2,4}})\b"
    rf"|\b\d{{1,2}}(?::\d{{2}})?\s?(?:am|pm|a\.m\.|p\.m\.)", re.I)
_LOOSE_DATE = re.compile(  # a month, a weekday or a year, after the word that makes it one
    rf"\b(?:in|by|on|from|until|since|before|after)\s+(?:(?:early|late|mid)[- ])?"
    rf"((?:{_MONTH}|{_DAY})\b|\d{{4}}s?\b)|\b((?:1\d{{3}}|20\d{{2}})s?)\b", re.I)
_HOW_MANY = re.compile(r"\b(how many|how much|what percent(?:age)?|how (?:long|far|old|large|"
                       r"big|high|tall|heavy|often)|what (?:is|was) the (?:cost|price|fee|rate|"
                       r"amount|number|total|deposit))\b", re.I)
_WHEN = re.compile(r"\b(when|what (?:year|date|day|time|month)|which (?:year|date|day|month))\b",
                   re.I)
_AGGREGATE = re.compile(r"\b(?:largest|smallest|biggest|highest|lowest|most|least|fewest|"
                        r"total|sum|average|mean|more|less|fewer)\b", re.I)
# a limit the quote sets on a number ("at least 36 hours", "no more than 4 guests"): a
# question asking of a number beyond it ("after 20 hours?") is answered No
_AT_LEAST = r"at least|no less than|not less than|no fewer than|(?:a )?minimum of|more than|over"
_AT_MOST = r"at most|no more than|not more than|up to|(?:a )?maximum of|less than|under|within"
_LIMIT = re.compile(rf"\b({_AT_LEAST}|{_AT_MOST})\s+(\d[\d,]*(?:\.\d+)?)\s+([a-z]+)", re.I)
_QUANTITY = re.compile(r"\b(\d[\d,]*(?:\.\d+)?)\s+([a-z]+)", re.I)
_REFERS_BACK = re.compile(r"\b(?:it|its|this|these|that|those|they|them|he|him|she|her)\b",
                          re.I)
_ALL = re.compile(r"\b(?:any|anyone|anybody|every|everyone|everybody|all)\b", re.I)
_ONLY = re.compile(r"\b(?:only|solely|exclusively)\b", re.I)
_WHO = re.compile(r"^\s*(who|whom)\b", re.I)
_WHERE = re.compile(r"^\s*where\b", re.I)
_PLACE = re.compile(r"\b(?:in|at|on|near|behind|beside|outside|inside|opposite|next to|"
                    r"by|from)\s+(?:the\s+)?[^,;.]+", re.I)
_UNIT = re.compile(r"\s*((?:[A-Za-z]+\s?){1,2})")


def lead(question: str, quote: str, before: str = "", span: str | None = None) -> str | None:
    """What the answer to `question` says first, from `quote`: "Yes", "No", NO_VERDICT, a
    value taken from the quote, or None when the question asks for none or the quote
    holds none. `before`: the sentence before the quote, which may name what its "it"
    stands for ("The board approved it..."). `span`: the reader's answer, when it is sure
    of it."""
    if _YES_NO.match(question):
        return verdict(question, quote, before)
    if span is not None:
        return None if _AGGREGATE.search(question) and row_fields(quote) else span
    if _AGGREGATE.search(question):  # computed from every row, or not said at all
        return None
    if row_fields(quote) is not None:  # a table row: only the cell of the column asked for
        return row_value(question, quote)
    if _HOW_MANY.search(question):
        return amount(question, quote)
    if _WHEN.search(question):
        return first_new(_DATE, question, quote) or first_new(_LOOSE_DATE, question, quote)
    if _WHO.match(question):
        return name(question, quote)
    if _WHERE.match(question):
        return place(question, quote)
    return None


def verdict(question: str, quote: str, before: str = "") -> str:
    """"Yes" when the quote holds the content words of the question (by stem) with the
    same polarity, "No" when it negates them, holds an opposite of one (OPPOSITES, or the word with
    un-, non-, in- or dis-) or limits to some ("only") what the question asks of any or
    all; when it sets a limit on a quantity the question asks of, "No" beyond it and "Yes"
    within it; else NO_VERDICT. The words of `before`, the sentence before the quote,
    count as said when the quote refers back to it ("it", "this"); its polarity does not."""
    asked = {index_term(word) for word in content_words(question)}
    own = {index_term(word) for word in content_words(quote)}
    said = own | ({index_term(word) for word in content_words(before)}
                  if _REFERS_BACK.search(quote) else set())
    opposite = {index_term(prefix + word) for word in content_words(question)
                for prefix in ("un", "non", "in", "dis")}  # "paid": "unpaid"
    if any(OPPOSITES.get(word, set()) & own - asked for word in asked) or opposite & own:
        return "No"
    if _ALL.search(question) and _ONLY.search(quote):  # "Can anyone...?" "Only staff who..."
        return "No"
    within = within_limit(question, quote)
    if within is not None:  # the numbers differ, and "no more than" is no negation here
        asked = {word for word in asked if not word[0].isdigit()}
    missing = asked - said
    if len(missing) > max(1, len(asked) // 3):
        return NO_VERDICT
    if within is not None:
        return "Yes" if within else "No"
    if negated(quote) != negated(question):
        return "No"
    return "Yes" if not missing else NO_VERDICT


def within_limit(question: str, quote: str) -> bool | None:
    """Whether the quantity the question asks of ("20 hours") is within the limit the
    quote sets on the same unit ("at least 36 hours": False; "no more than 4 guests" for
    3 guests: True); None when the quote sets no limit on it."""
    limits = [(kind.lower(), float(number.replace(",", "")), index_term(unit))
              for kind, number, unit in _LIMIT.findall(quote)]
    for number, unit in _QUANTITY.findall(question):
        asked = float(number.replace(",", ""))
        for kind, bound, limit_unit in limits:
            if limit_unit == index_term(unit):
                lower = re.fullmatch(_AT_LEAST, kind) is not None
                return asked >= bound if lower else asked <= bound
    return None


def row_value(question: str, quote: str) -> str | None:
    """A table row's cell in the column the question names and whose value it lacks."""
    row = row_fields(quote)
    if row is None:
        return None
    asked = {index_term(word) for word in content_words(question)}
    for column, value in row[1]:
        named = {index_term(word) for word in content_words(column)}
        if named and named <= asked and not {index_term(w) for w in content_words(value)} <= asked:
            return value.rstrip(".")
    return None


def amount(question: str, quote: str) -> str | None:
    """The first number of the quote that the question does not hold, with the word or two
    after it when the question names them ("How many spaces...": "80 spaces") or it is a
    unit of measure."""
    asked = {index_term(word) for word in content_words(question)}
    for found in _NUMBER.finditer(quote):
        value = found.group().strip()
        if not value or index_term(value.lower()) in asked or value.lower() in question.lower():
            continue
        unit = _UNIT.match(quote, found.end())
        if unit and not value.endswith("%"):
            words = unit.group(1).split()
            kept = []
            for word in words:
                if word.lower() in STOPWORDS:
                    break
                kept.append(word)
                if index_term(word.lower()) in asked:
                    break
            if kept and (any(index_term(w.lower()) in asked for w in kept) or len(kept) == 1):
                value = f"{value} {' '.join(kept)}"
        return value
    return None


def first_new(pattern: re.Pattern[str], question: str, quote: str) -> str | None:
    """The first match of `pattern` in the quote that the question does not hold (its
    first group that matched, if it has groups)."""
    for found in pattern.finditer(quote):
        value = next((g for g in found.groups() if g), found.group()).strip()
        if not re.search(rf"\b{re.escape(value)}\b", question):  # "When may...": "May"
            return value
    return None


def name(question: str, quote: str) -> str | None:
    """The first name (a run of capitalised words, "and" joining two) in the quote that
    the question does not hold; the quote's first word counts only if it is no stopword."""
    asked = {word.lower() for word in WORD.findall(question)}
    tokens = re.findall(r"[\w'’-]+|[^\w\s]", quote)
    runs: list[list[str]] = []
    run: list[str] = []
    for i, token in enumerate([*tokens, "."]):
        capital = token[:1].isupper() and token.lower() not in asked and not (
            i == 0 and token.lower() in STOPWORDS)
        if capital or (run and token.lower() in ("de", "van", "von", "da", "of", "and")):
            run.append(token)
            continue
        if run:
            while run and run[-1].lower() in ("de", "van", "von", "da", "of", "and"):
                run.pop()
            runs.append(run)
            run = []
    return " ".join(runs[0]) if runs and runs[0] else None


def place(question: str, quote: str) -> str | None:
    """The place phrase ("in the car park behind the bakery") after the question's words
    in the quote."""
    asked = {index_term(word) for word in content_words(question)}
    for found in _PLACE.finditer(quote):
        phrase = found.group().split("\n")[0].strip()
        words = {index_term(word) for word in content_words(phrase)}
        if words and not words <= asked and not (_DATE.search(phrase)
                                                 or _LOOSE_DATE.search(phrase)):
            return phrase[0].upper() + phrase[1:]
    return None
