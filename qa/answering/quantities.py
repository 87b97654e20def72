"""Quantities: the amounts a question tests and the values, ranges and limits a text sets
on them, read in one unit, so that comparing them decides a yes/no question ("Is a pH of
7.4 ok?" of "pH between 7.2 and 7.6": Yes; "under £13?" of "costs £13.50": No; "within
6 weeks?" of "within 42 days": Yes; "open until 6pm?" of "15:20 to 18:00": Yes).

An amount is a number and its unit: a currency sign before it, "%", a clock time ("6pm",
"18:00"), else the word after it, or the next one when that word only describes it ("6
penalty points", "10 working days"). Units of one measure are read in the smallest ("6
weeks": 42 days; "2 years": 24 months; "1.5 hours": 90 minutes); any other unit is
compared with itself, by stem ("guests"). Small numbers count in words too ("at most two
guests"). An age counts years ("aged 10 and over", "I'm 23"). A date ("12 May"), a year
or a name's number ("Year 4") is no amount.

What a text says of an amount is a span of it: the amount alone, a range ("between 7.2
and 7.6", "15:20 to 18:00", "2 to under 5 years"), or a limit ("at least 12 months",
"over £500", "10 years or more"). "From £25 to £30" is a change, two amounts, unless
they are clock times ("from 9:00 to 17:00").
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from qa.stemming import index_term
from qa.words import MONTHS, NUMBER_WORD, NUMBER_WORDS, STOPWORDS, YES_NO

_NUMBER = r"\d+(?:,\d{3})*(?:\.\d+)?"  # "1,250.50"; linear on a run of "1,1,1,..."
_CURRENCIES = {"£": "pound", "$": "dollar", "€": "euro"}
# the units of one measure, in the smallest of them
_MEASURES = {
    "minute": ("minute", 1), "min": ("minute", 1), "mins": ("minute", 1),
    "hour": ("minute", 60), "hr": ("minute", 60), "hrs": ("minute", 60),
    "day": ("day", 1), "week": ("day", 7), "wk": ("day", 7), "wks": ("day", 7),
    "fortnight": ("day", 14),
    "month": ("month", 1), "mo": ("month", 1), "mos": ("month", 1), "mth": ("month", 1),
    "mths": ("month", 1), "year": ("month", 12), "yr": ("month", 12), "yrs": ("month", 12),
    "pound": ("pound", 1), "percent": ("percent", 1),
}
_AMOUNT = re.compile(
    rf"(?P<currency>[£$€])\s?(?P<money>{_NUMBER})(?P<scale>[km]\b)?"
    r"|(?<![\d.,:])\b(?P<hour>\d{1,2})(?:[:.](?P<minute>\d{2}))?\s?(?P<half>[ap])\.?m\.?(?!\w)"
    r"|\b(?P<clock>\d{1,2}):(?P<clock_minute>\d{2})\b"
    rf"|(?<![\w.,:])(?<!\d{{4}}[-/])(?<!\d/){_NUMBER.join(('(?P<number>', ')'))}"
    r"(?![\w:]|[.,]\d)"
    r"(?:\s*(?P<percent>%|per ?cent\b))?"
    r"(?:(?:\s+|-)(?P<word>[a-z]+)(?:(?:\s+|-)(?P<next>[a-z]+))?)?",
    re.IGNORECASE)
_DATE_NEAR = re.compile(rf"\s*(?:st|nd|rd|th)?\s*(?:of\s+)?(?:{MONTHS})\b", re.IGNORECASE)
_MONTH_BEFORE = re.compile(rf"\b(?:{MONTHS})\.?\s*$", re.IGNORECASE)
# what bounds an amount, said before it ("at least 12 months") or after it ("10 or more")
_FLOOR_BEFORE = (r"at least|no less than|not less than|no fewer than|(?:a )?minimum of|"
                 r"min\.?")
_ABOVE_BEFORE = r"over|more than|above|greater than|exceed(?:s|ing)?|in excess of"
_CEILING_BEFORE = (r"at most|no more than|not more than|up to|(?:a )?maximum of|max\.?|"
                   r"within|no later than")
_BELOW_BEFORE = r"less than|under|below|fewer than"
_BOUND_BEFORE = re.compile(
    rf"\b(?:(?P<floor>{_FLOOR_BEFORE})|(?P<above>{_ABOVE_BEFORE})|"
    rf"(?P<ceiling>{_CEILING_BEFORE})|(?P<below>{_BELOW_BEFORE})|(?P<by>by))\s*$",
    re.IGNORECASE)  # "by 5pm": a time's latest; "reduced by £5" bounds nothing
_BOUND_AFTER = re.compile(
    r"\s*(?:(?P<floor>or more|or over|or longer|or above|and over|and above|plus|\+)|"
    r"(?P<ceiling>or less|or fewer|or under|or below|or earlier))\b", re.IGNORECASE)
_BETWEEN = re.compile(r"\bbetween\s*$", re.IGNORECASE)
_OPENS_RANGE = re.compile(r"\b(?:between|from)\s*$", re.IGNORECASE)  # where a range is said
_AND = re.compile(r"^\s*and\s*$", re.IGNORECASE)
_TO = re.compile(r"^\s*(?:to|until|till|–|-|—)\s*(?P<open>under\s+|less than\s+|below\s+)?$",
                 re.IGNORECASE)
_FROM = re.compile(r"\bfrom\s*$", re.IGNORECASE)
_CLOCK = "clock"
_MONEY = frozenset(_CURRENCIES.values())
# verbs whose "over" is theirs ("carry over 3 days", "handed over 2 keys")
_CARRIED = re.compile(r"\b(?:carr(?:y|ies|ied)|hand(?:s|ed)?|t(?:ake|akes|aken|ook)|"
                      r"turn(?:s|ed)?|roll(?:s|ed)?|h(?:old|olds|eld))\s*$", re.IGNORECASE)
_BARE = frozenset(("",))  # the unit of a number with none: "between 7.2 and 7.6."
_NAME_BEFORE = re.compile(r"\b([A-Z]\w*)[ \t]+$")
_NEGATION = re.compile(r"\b(?:not|no|never|cannot)\b|n't\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.;!?]\s|,\s+(?:but|whereas|although|though|however)\b", re.I)
_PERIOD_BEFORE = re.compile(r"\b(?:per|each|every|(?:in|within|over|during)\s+(?:any|each|every)"
                            r"(?:\s+one)?)\s+$", re.IGNORECASE)
_PART_MARKS = ",;:.!?"  # what parts a list of limits: "tinned goods up to 6 months, dry..."
# an age: its numbers count years ("aged 10 and over", "aged between 11 and 17")
_AGED = re.compile(r"\bage[ds]?\s+(?:between\s+|from\s+)?(?:\d+\s*(?:to|and|-|–)\s*)?$",
                   re.IGNORECASE)
_I_AM = re.compile(r"\b(?:I'm|I am|I’m)\s+$", re.IGNORECASE)  # a number alone after it: an age
_LOOK_BACK = 80  # characters before an amount that its bound, range or name is read from
NEGATION_WORDS = 6  # before what a text says of an amount, that negate it
_MEASURED = frozenset([_CLOCK, *_CURRENCIES.values(), *(unit for unit, _ in _MEASURES.values())])


@dataclass(frozen=True, slots=True)
class Amount:
    """A number in its unit's smallest measure ("6 weeks": 42, "day"), where it stands in
    the text and how it writes the number. `units`: what it counts, one unit or, for a
    word that may only describe the next one, both ("penalty points")."""

    value: float
    units: frozenset[str]
    start: int
    end: int
    number: str  # as the text writes it ("6" of "6 yrs")


@dataclass(frozen=True, slots=True)
class Span:
    """The amounts a text allows: from `low` to `high`, each in or out, and the amounts
    that say so."""

    low: float
    high: float
    low_in: bool
    high_in: bool
    units: frozenset[str]
    start: int = 0  # where the text says it: its first amount, or the bound before it
    of: tuple[Amount, ...] = ()

    def holds(self, value: float) -> bool:
        above = self.low < value or self.low_in and value == self.low
        return above and (value < self.high or self.high_in and value == self.high)

    def within(self, other: "Span") -> bool:
        """Whether every amount of this span is one of `other`."""
        return ((other.low < self.low or other.low == self.low and (other.low_in
                                                                     or not self.low_in))
                and (self.high < other.high or self.high == other.high and (
                    other.high_in or not self.high_in)))

    def apart(self, other: "Span") -> bool:
        """Whether no amount is of both spans."""
        return not (self.low < other.high or self.low == other.high and self.low_in
                    and other.high_in) or not (other.low < self.high or other.low == self.high
                                               and other.low_in and self.high_in)


def amounts(text: str) -> list[Amount]:
    """The amounts `text` names, dates and years left out."""
    found = []
    for match in _AMOUNT.finditer(in_digits(text)):
        amount = _amount(match)
        if amount is not None and not _dated(match):
            found.append(amount)
    return found


def spans(text: str) -> list[Span]:
    """What `text` says of its amounts: each amount alone, in a range or limited."""
    text = in_digits(text)
    found, said = [], amounts(text)
    i = 0
    while i < len(said):
        amount, after = said[i], said[i + 1] if i + 1 < len(said) else None
        top_out = None if after is None else _ranged(text, amount, after)
        if after is None or top_out is None:
            alone = _limited(text, amount)
            found += [alone] if alone else []
            i += 1
            continue
        low = amount.value
        if amount.units == _BARE:  # "2-6 weeks": 2 weeks
            low *= after.value / _number(after.number)
        units = after.units if amount.units == _BARE else amount.units & after.units
        opened = _OPENS_RANGE.search(text, max(0, amount.start - _LOOK_BACK), amount.start)
        found.append(Span(low, after.value, True, not top_out, units or after.units,
                          opened.start() if opened else amount.start, (amount, after)))
        i += 2
    return found


def decides(question: str, text: str, exact: bool = False) -> bool | None:
    """Whether what `text` says of the amount the question tests answers it Yes (True) or
    No (False): the question's amount or its bounds ("between 95% and 98%", "under £13")
    within what the text allows of it in the same unit, or apart from it; None when the
    text says nothing of that unit, or more than one thing, or the question names no
    amount. A text's exact amount decides only a question that bounds it ("between",
    "under"), unless `exact`: then it decides one that names an amount too ("Is the fee
    £25?" of "The fee is £30": No), which the caller asks only of a text that says what
    the question asks about. A limit that
    overlaps a range asked is read as its own amount, the deadline or cap it sets
    ("between 24 and 72 hours?" of "reported within 48 hours": Yes). A negation just
    before what the text says turns it ("We do not accept cash over £500": £400 is Yes)."""
    text = in_digits(text)
    verdicts, told = set(), spans(text)
    for asked in spans(question):
        if asked.units == _BARE:  # "one of our vans" tests no amount
            continue
        alike = [span for span in told if span.units & asked.units
                 and _a_period_of(question, asked) == _a_period_of(text, span)] or [
            span for span in told if span.units == _BARE and not asked.units & _MEASURED]
        if len(alike) > 1:  # "tinned goods up to 6 months, rice up to 2": of what is asked
            alike = _of_asked(question, text, alike)
        if len(alike) != 1:
            continue
        said = alike[0]
        if asked.low == asked.high:  # a point: is it one the text allows?
            inner, outer = asked, said
        else:  # a range or a bound: does it hold what the text says?
            inner, outer = said, asked
        if said.low == said.high and asked.low == asked.high:
            if exact and not _turned(text, said):  # "not £30" says nothing of £25
                verdicts.add(said.low == asked.low)
            continue
        turned = _turned(text, said)
        if inner.within(outer):
            verdicts.add(not turned)
        elif inner.apart(outer):
            verdicts.add(turned)
        elif _two_sided(asked) and math.isinf(said.low) != math.isinf(said.high):
            verdicts.add(asked.holds(said.of[-1].value) != turned)  # the limit's own amount
    return verdicts.pop() if len(verdicts) == 1 else None


def _a_period_of(text: str, span: Span) -> bool:
    """Whether the span is the period a rate or a limit is counted over, not an amount
    itself: "12 months" of "up to 3 months in any 12 months" ("per", "each", "every",
    "in any")."""
    return bool(_PERIOD_BEFORE.search(text, max(0, span.start - _LOOK_BACK), span.start))


def _two_sided(span: Span) -> bool:
    """Whether a span is a range bounded on both sides ("between 24 and 72 hours")."""
    return not math.isinf(span.low) and not math.isinf(span.high) and span.low < span.high


def points(question: str) -> list[Amount]:
    """The amounts a question names alone ("if I've been here 6 yrs": 72 months), not
    those it bounds ("a claim over 250 pounds" is no point in a range)."""
    return [span.of[0] for span in spans(question) if len(span.of) == 1
            and span.low == span.high]


def contains(asked: Sequence[Amount], text: str) -> bool | None:
    """Whether a range or limit of the text holds one of the amounts `asked` (`points`),
    in its unit ("5 years to less than 10 years" for 6 years: True; "Less than 2 years",
    "10 years or more": False); None when the text bounds none in their units."""
    verdicts = [span.holds(amount.value) for span in spans(text) if span.low != span.high
                for amount in asked if span.units & amount.units - _BARE]
    return any(verdicts) if verdicts else None


def untested(question: str) -> str:
    """A yes/no question without the amounts it tests ("Is the club open until 6pm?": the
    documents need not say "6pm" to answer it); any other question as it is."""
    if not YES_NO.match(question):
        return question
    text = in_digits(question)
    for amount in reversed(amounts(text)):
        text = f"{text[:amount.start]} {text[amount.end:]}"
    return text


def tested_units(question: str) -> frozenset[str]:
    """The units of the amounts a yes/no question tests ("Can a reader have three boxes
    out?": boxes); none for any other question."""
    if not YES_NO.match(question):
        return frozenset()
    return frozenset(unit for amount in amounts(question) for unit in amount.units) - _BARE


def says_an_amount_of(units: frozenset[str], text: str) -> float:
    """Whether `text` says an amount in one of `units` ("No more than 2 boxes on your
    desk"): of a question's `tested_units`, the sentence that can decide it."""
    return float(any(amount.units & units for amount in amounts(text)))


def bounds(text: str) -> bool:
    """Whether the text sets a limit or a range on an amount ("no more than two members")."""
    return any(span.low != span.high for span in spans(text))


def names_money(text: str) -> bool:
    """Whether the text names an amount of money ("£27,500", "$40")."""
    return any(amount.units & _MONEY for amount in amounts(text))


def in_digits(text: str) -> str:
    """The text with small numbers written in words written in digits ("two": "2")."""
    return NUMBER_WORD.sub(lambda found: str(NUMBER_WORDS[found.group().lower()]), text)


def _amount(match: re.Match[str]) -> Amount | None:
    """The amount a match of _AMOUNT names, None for a year."""
    start, end = match.span()
    if match["currency"]:
        scale = {"k": 1e3, "m": 1e6}.get((match["scale"] or "").lower(), 1)
        unit = _CURRENCIES[match["currency"]]
        return Amount(_number(match["money"]) * scale, frozenset((unit,)), start, end,
                      match["money"])
    if match["hour"] or match["clock"]:
        hour = int(match["hour"] or match["clock"]) % 12 if match["hour"] else int(
            match["clock"])
        pm = (match["half"] or "").lower() == "p"
        minute = int(match["minute"] or match["clock_minute"] or 0)
        return Amount((hour + 12 * pm) * 60 + minute, frozenset((_CLOCK,)), start, end,
                      match.group())
    name = _NAME_BEFORE.search(match.string, max(0, start - _LOOK_BACK), start)
    opening = match.string[:name.start(1)].rstrip()[-1:] if name else ""
    if name and name.group(1).lower() not in STOPWORDS and opening not in ("", *".:;!?(\n"):
        return None  # a name's number: "Year 4", "Grade 2"; not "Within 42 days"
    value = _number(match["number"])
    if match["percent"]:
        return Amount(value, frozenset(("percent",)), start, match.end("percent"),
                      match["number"])
    word, following = (match[name].lower() if match[name] else "" for name in ("word", "next"))
    if _AGED.search(match.string, max(0, start - _LOOK_BACK), start):  # "aged 10 and over"
        unit, per = _MEASURES["year"]
        return Amount(value * per, frozenset((unit,)), start, match.end("number"),
                      match["number"])
    for unit in (word, following):
        measure = _MEASURES.get(_singular(unit))
        if measure is not None:  # "9 years old" whole
            ends = "next" if unit == following or following == "old" else "word"
            return Amount(value * measure[1], frozenset((measure[0],)), start,
                          match.end(ends), match["number"])
    if 1900 <= value <= 2099 and value.is_integer():
        return None  # a year
    named = frozenset(index_term(w) for w in (word, following) if w and w not in STOPWORDS)
    if not named and _I_AM.search(match.string, max(0, start - _LOOK_BACK), start):
        unit, per = _MEASURES["year"]  # "I'm 23, can I...": an age
        return Amount(value * per, frozenset((unit,)), start, match.end("number"),
                      match["number"])
    return Amount(value, named or _BARE, start, match.end("number"),
                  match["number"])


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and word[:-1] in _MEASURES else word


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _dated(match: re.Match[str]) -> bool:
    """Whether the matched number is a date's day ("12 May", "May 12")."""
    if not match["number"]:
        return False
    text = match.string
    return bool(_DATE_NEAR.match(text, match.end("number"))
                or _MONTH_BEFORE.search(text, max(0, match.start() - _LOOK_BACK), match.start()))


def _ranged(text: str, first: Amount, second: Amount) -> bool | None:
    """Whether two amounts make a range ("between 2 and 5", "2 to 5", "9:00-17:00"): None
    when not; else whether its top is left out ("2 to under 5 years")."""
    between, back = text[first.end:second.start], max(0, first.start - _LOOK_BACK)
    if _CLOCK in second.units and (first.units == _BARE or first.value > second.value):
        return None  # "9-5pm", "10pm to 6am": not read as a range
    if _BETWEEN.search(text, back, first.start) and _AND.match(between):
        return False
    to = _TO.match(between)
    if to is None:
        return None
    if _FROM.search(text, back, first.start) and _CLOCK not in second.units:
        return None  # "from £25 to £30": a change
    return bool(to["open"])


def _limited(text: str, amount: Amount) -> Span | None:
    """The span an amount alone allows: bounded by the words before or after it, else
    itself; None for what something changed by ("reduced by £5", "rose by 4%"; "by 5pm"
    is a time's latest)."""
    before = _BOUND_BEFORE.search(text, max(0, amount.start - _LOOK_BACK), amount.start)
    if before and before["by"] and _CLOCK not in amount.units:
        return None
    if before and (before["above"] or "").lower() == "over" and _CARRIED.search(
            text, max(0, before.start() - _LOOK_BACK), before.start()):
        before = None  # "carry over 3 days": a verb's "over", no bound
    bound = before or _BOUND_AFTER.match(text, amount.end)
    kind = next((name for name, said in bound.groupdict().items() if said), "") if bound else ""
    value, inf = amount.value, math.inf
    low, high, low_in, high_in = {
        "floor": (value, inf, True, False), "above": (value, inf, False, False),
        "ceiling": (-inf, value, False, True), "by": (-inf, value, False, True),
        "below": (-inf, value, False, False),
    }.get(kind, (value, value, True, True))
    return Span(low, high, low_in, high_in, amount.units,
                before.start() if before else amount.start, (amount,))


def _of_asked(question: str, text: str, spans: Sequence[Span]) -> list[Span]:
    """The spans whose part of the text (between commas, colons or clause ends) holds a
    word of the question the other spans' parts do not ("tinned beans" of "tinned goods up
    to 6 months after the best-before date, rice up to 2 months after it")."""
    asked = _stems(question)
    parts = []
    for span in spans:
        begin = max(text.rfind(mark, 0, span.start) for mark in _PART_MARKS) + 1
        ends = [at for at in (text.find(mark, span.of[-1].end) for mark in _PART_MARKS)
                if at >= 0]
        parts.append(_stems(text[begin:min(ends, default=len(text))]))
    return [span for i, span in enumerate(spans)
            if asked & parts[i] - set().union(*parts[:i], *parts[i + 1:])]


def _stems(text: str) -> set[str]:
    return {index_term(word) for word in re.findall(r"[a-z]+", text.lower())
            if word not in STOPWORDS}


def _turned(text: str, span: Span) -> bool:
    """Whether a negation turns what the text says of the span: one just before it (in
    its clause, `_negated_before`), or, of an age, one after it in its clause: "Volunteers
    aged 16 or 17 ... may not operate the pallet truck" (an age says whom a rule is of)."""
    if _negated_before(text, span.start):
        return True
    first = span.of[0]
    if not _AGED.search(text, max(0, first.start - _LOOK_BACK), first.start):
        return False
    end = _CLAUSE_END.search(text, span.of[-1].end)
    return bool(_NEGATION.search(text[span.of[-1].end:end.start() if end else len(text)]))


def _negated_before(text: str, start: int) -> bool:
    """Whether a negation is among the NEGATION_WORDS words before `start`, in its clause
    ("We do not accept cash over £500"; not "The deposit is £200 and is not refundable")."""
    back = text[max(0, start - _LOOK_BACK):start]
    ends = list(_CLAUSE_END.finditer(back))
    words = back[ends[-1].end() if ends else 0:].split()[-NEGATION_WORDS:]
    return bool(_NEGATION.search(" ".join(words)))
