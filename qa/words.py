"""The word patterns every stage shares, one copy each: words, stopwords, a section's
number, numbers written in words, months, dates and weekdays, the auxiliaries that open a
yes/no question, and the pronouns by which a sentence refers back to an earlier one.

Indexing (`qa.indexing.chunking`, `qa.stemming`) and answering (`qa.answering`) read
words the same way because they read them here.
"""

import re
from collections.abc import Iterable

WORD = re.compile(r"\w+")
# a section's number opening a heading: "2. Fees", "3.1 Vehicle size" (not "14 Quay Street"
# or "2024 Budget", which open with a number that numbers no section)
SECTION_NUMBER = re.compile(
    r"\s*(?:\d{1,2}(?:\.\d{1,2})+\.?|\d{1,2}\.)\s+[^\W\d_]")
STOPWORDS = frozenset((
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and",
    "or", "but", "nor", "is", "are", "was", "were", "be", "been", "being", "am", "do",
    "does", "did", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "that", "this", "these", "those", "it", "its", "as", "into", "than", "then", "there",
    "their", "they", "them", "he", "him", "his", "she", "her", "hers", "has", "have", "had",
    "having", "not", "no", "can", "could", "would", "should", "will", "shall", "may",
    "might", "must", "about", "over", "under", "after", "before", "during", "between",
    "through", "up", "down", "out", "off", "also", "such", "any", "some", "many", "much",
    "more", "most", "other", "s", "i", "you", "your", "we", "our", "us", "me", "my",
    # the words that make a request of a question, not what it asks about
    "list", "name", "names", "named", "everyone", "everybody", "enumerate", "tell",
))

NUMBER_WORDS = {word: n for n, word in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty"))} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
                               "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100}
_LARGE_NUMBER_WORDS = ("thousand", "million", "billion", "dozen")

MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
               "september", "october", "november", "december")
# a month as dates write it: whole or cut to its first three letters ("Sept" too)
MONTHS = "|".join(f"{name[:3]}(?:{name[3:]})?" for name in MONTH_NAMES) + "|sept"
MONTH_NUMBERS = {name[:3]: n for n, name in enumerate(MONTH_NAMES, 1)}
# a date a text names, day and month in words or ISO: "3 March", "March 3rd", "2026-03-03"
DATE = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?: of)? (?P<month>{MONTHS})\b|"
    rf"\b(?P<month2>{MONTHS}) (?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\b|"
    r"\b\d{4}-(?P<month3>\d{2})-(?P<day3>\d{2})\b", re.I)

WEEKDAYS = "(?:mon|tues|wednes|thurs|fri|satur|sun)day"

# the verbs that open a yes/no question ("Is...", "Did...", "Must...")
AUXILIARIES = ("am", "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can",
               "could", "will", "would", "should", "may", "must")
# the words by which a sentence points at something said before it
PRONOUNS = ("he", "him", "his", "she", "her", "hers", "they", "them", "their", "theirs",
            "it", "its", "this", "these", "that", "those")


def any_of(words: Iterable[str]) -> str:
    """A pattern for any one of `words`, whole ("it" does not match in "item")."""
    return r"\b(?:" + "|".join(words) + r")\b"


NUMBER_WORD = re.compile(any_of(NUMBER_WORDS), re.I)
# a number in digits or in words
NUMBER = re.compile(r"\d|" + any_of([*NUMBER_WORDS, *_LARGE_NUMBER_WORDS]), re.I)
# a yes/no question: it opens with a verb ("Is...", "Can..."), or asks with one after what
# it tells ("Client wants to pay £400 in cash - is that allowed?", "If I'm off for 5
# days, do I need a note?"); not "If the boiler fails, who do I call?"
_WH = r"\b(?:who|whom|whose|what|which|when|where|why|how)\b"
_TOLD = rf"(?:(?!{_WH})[^?])*?"
YES_NO = re.compile(rf"^(?:\s*if\b(?![^?]*{_WH}){_TOLD}[\s,]|{_TOLD}(?:[,;:–—]|\s-)\s*|\s*)"
                    rf"{any_of(AUXILIARIES)}\s+(?P<rest>.+)", re.I | re.S)


# two years in a row: "2024-25", "2024/2025", "24/25" (not "10-11", a span of days)
_YEAR_SPAN = re.compile(r"\b(?:(?:19|20)(\d\d)\s*[/–-]\s*(?:19|20)?|(\d\d)/)(\d\d)\b")


def years_as_one_word(text: str) -> str:
    """The text with each span of two years written as one word, however it is written
    ("2024-25", "24/25", "2024/2025": "years2425"), so that a row of one is none of another."""
    def one_word(found: re.Match[str]) -> str:
        first, last = found[1] or found[2], found[3]
        return f"years{first}{last}" if (int(first) + 1) % 100 == int(last) else found.group()
    return _YEAR_SPAN.sub(one_word, text)


def dates(text: str) -> set[tuple[int, int]]:
    """The (month, day) dates a text names: "3 March", "March 3rd", "2026-03-03"."""
    found = set()
    for match in DATE.finditer(text):
        day = match["day"] or match["day2"] or match["day3"]
        month = match["month"] or match["month2"]
        number = MONTH_NUMBERS[month[:3].lower()] if month else int(match["month3"])
        found.add((number, int(day)))
    return found
