"""Question kinds: what a question asks for, and whether a sentence gives it.

Plain rules on words, no model: each takes the question and a sentence's text and
returns a signal from 0 to 1 that `qa.answering.quoted` weighs with the others. They are kept
here, apart from the scoring, so each can be read and tested on a pair of
hand-written sentences.

- answer type: a "when" question wants a date, "how many" a number, "who" and
  "where" a name the question does not already hold, "what time", "what is the door
  code / e-mail address / phone number / address" a value of that kind;
- doer: a "who did it" question ("Who has resigned...?") wants a name just before
  the asked verb, where the sentence says it happened: not negated ("no plans to
  resign"), not wished for ("called for them to resign").

- subject: a yes/no question ("Did Cedillo resign?") is decided by a sentence about
  its subject, one that names it among its first words ("Cedillo is due to step down"),
  rather than one that only shares the verb and names it in passing;
- listing: a list question ("Name everyone who...", "Which teams are...?", "List...")
  wants the sentence that names the most things: the count of its capitalised runs of
  words (names) or, in a table row or an enumeration, of its items.

A name or a number the question holds ("the UGSS forecast", "in 1805") that no passage
holds says the documents are about something else: `specific_names` finds them. And a
question for a value that only one kind of text can state (a clock time, a door or alarm
code, an e-mail address, a phone number, a time for "When...?") is not answered by a
sentence without one, however close it is ("The alarm code is changed every quarter"):
`lacks_asked_value` tells.

An overview question ("What is this document about?", "Summarize the handbook") asks
for no sentence in particular: `summary_subject` tells it apart, and `qa.answering.summary`
answers it.
"""

import re
from collections.abc import Callable, Sequence

from qa.answering.quantities import says_an_amount_of, tested_units
from qa.stemming import index_term
from qa.words import (
    AUXILIARIES,
    MONTH_NAMES,
    MONTHS,
    NUMBER,
    STOPWORDS,
    WEEKDAYS,
    WORD,
    YES_NO,
    any_of,
    years_as_one_word,
)

_YEAR = re.compile(r"(?:19|20)\d\d")
_YEARS = re.compile(r"years(\d\d)(\d\d)")  # a span of two years (`years_as_one_word`)
_SEASON = re.compile(r"\b(spring|summer|autumn|winter)\b", re.I)
_STARTS = re.compile(r"(?:^|[.!?\n])[\s\"'“‘(]*$")  # what a sentence's first word follows
_QUARTER = re.compile(r"\b(Q[1-4])\b", re.I)
_MONTH = re.compile(rf"\b({'|'.join(name.capitalize() for name in MONTH_NAMES)}|"
                    rf"{'|'.join(name[:3].capitalize() for name in MONTH_NAMES)}|Sept)\b")
# a label: a capitalised word and its number or letter ("Level 2", "Lift B"), not an
# amount ("Costs 1,200") or a date ("Sunday 5")
_LABEL = re.compile(r"\b([A-Z][a-z]{2,})\s+(\d{1,3}[a-z]?|[A-Z])\b(?![,.:]\d)")
_ASKED_LABEL = re.compile(r"\b([A-Za-z]{3,})\s+(\d{1,3}[a-z]?|[A-Z])\b(?![,.:]\d)")
_NOT_A_LABEL = re.compile(rf"(?:{MONTHS}|{WEEKDAYS}|{any_of(STOPWORDS)})", re.I)
_QUESTION_START = re.compile(any_of((
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", *AUXILIARIES,
    "list", "name", "enumerate", "tell", "explain", "describe",
    "whats", "whos", "wheres", "whens", "hows", "whys")), re.I)  # typed without apostrophes
_TIME_QUESTION = re.compile(
    r"\b(when|what year|which year|what decade|what century|what date|how long ago)\b", re.I)
_NUMBER_QUESTION = re.compile(
    r"\b(how many|how much|what percent|what percentage|how large|how big|how long|how far|"
    r"how old|how high|how tall|what population)\b", re.I)
_CALENDAR = re.compile(f"{WEEKDAYS}|{'|'.join(MONTH_NAMES)}", re.I)
# what a contraction adds to a word, each a stopword ("n't": not; "'m": am; "'ve": have)
_CONTRACTION = re.compile(r"\b(?:ca|wo|sha)n['’]t\b|(?<=\w)(?:n['’]t|['’](?:m|ve|re|ll|d))\b")
_NAME_QUESTION = re.compile(r"\b(who|whom|whose|where)\b", re.I)
# "Who has already resigned...": the words between "who" and its verb; a copula or "did"
# there makes it a question of another kind ("Who is...", "Who did they...").
_BEFORE_VERB = frozenset((
    "has", "have", "had", "to", "will", "would", "can", "could", "should", "may", "might",
    "must", "already", "also", "else", "first", "still", "just", "now", "once", "later",
    "then", "ever", "never", "actually",
))
_NOT_A_DOER_QUESTION = frozenset(("is", "are", "was", "were", "be", "been", "do", "does", "did"))
# before a verb, these say it did not happen, or not yet: negated, wished, supposed
_NOT_HAPPENED = frozenset((
    "no", "not", "never", "nor", "neither", "without", "cannot", "t", "to", "if", "whether",
    "should", "would", "could", "might", "may", "must", "unless",
))
DOER_SPAN = 3  # words before the verb where the doer's name may stand
_CLAUSE_BREAK = re.compile(r"[;:]")
# a noun made from the verb names the act but does not say it happened ("his resignation")
_NOUN_ENDINGS = ("tion", "sion", "ment", "ance", "ence", "al")
_TIME = re.compile(
    rf"\b(1\d{{3}}|20\d{{2}})s?\b|\b(?:{'|'.join(MONTH_NAMES)}|century|centuries)\b", re.I)

_POLITE = r"^\s*(?:(?:please|(?:can|could|would|will) (?:you|u)|pls)\s+)*"
_SUMMARY_REQUEST = re.compile(
    _POLITE + r"(?:summari[sz]e|sum up|recap|outline|"
    r"(?:give|show|tell|write)(?: me| us)? (?:a |an |the )?(?:short |brief |quick |one-line )?"
    r"(?:summary|overview|gist|synopsis|rundown|outline|recap|main points|key points)|"
    r"(?:a |an |the )?(?:short |brief |quick |one-line )?(?:summary|overview|gist|synopsis|"
    r"rundown|recap)(?= of\b)|"
    r"what(?:'s|’s|s| is| are) the (?:gist|summary|overview|main points?|key points?|main ideas?|"
    r"key ideas?|main takeaways?|key takeaways?|main topics?|key findings|main findings)|"
    r"tl;? ?dr)\b(?:\s+(?:of|for|on|in|about))?(?P<subject>.*?)[\s?.!]*$", re.I)
_THANKS = re.compile(r"(?:\s+(?:for me|for us|please|pls|plz|thanks|thx|ta))+$", re.I)
_ABOUT_QUESTION = re.compile(
    _POLITE + r"(?:what(?:'s|s| is| are| was| were)|tell me what) (?P<subject>.+?)(?: is| are)?"
    r" (?:all |mainly |mostly |really )?about[\s?.!]*$", re.I)
_COVER_QUESTION = re.compile(
    _POLITE + r"what(?: does| do|'s|s| is) (?P<subject>.+?) (?:say|saying|cover|describe|"
    r"discuss|talk about|deal with)[\s?.!]*$", re.I)

SUBJECT_SPAN = 6  # the first words of a sentence, where its own subject stands
_LIST_QUESTION = re.compile(
    r"^\s*(?:please\s+)?(?:list|name|enumerate)\b|\b(?:everyone|everybody)\b|"
    r"^\s*(?:which|what) \w+[^s\W]s (?:were|are|have|had|did|do)\b|"
    # "which volunteer roles need...", "who are the first aiders...": things, a plural
    r"^\s*(?:which|what)\s+(?:are|were)\s+the\s+(?:\w+\s+){0,2}\w+[^s\W']s\s+"
    r"(?!of\b|for\b|in\b|on\b|per\b)\w|"
    r"^\s*(?:which|what)\s+(?:(?!(?:of|for|in|on|at|per|the|a|an|is|are|was|were|do|does|did|"
    r"has|have|had)\b)\w+\s+){0,3}\w+[^s\W']s\s+(?:are|were|is|was|have|has|had|do|did|"
    r"need|needs|require|can|cant|can't|cannot|could|must|should|will|would|may|might|get|"
    r"got|use|run|offer|take)\b|"
    r"^\s*who\s+(?:are|were)\s+(?:the\s+|our\s+)?(?:\w+\s+){0,2}\w+[^s\W']s\b|"
    r"^\s*who\s+(?:attended|(?:was|were)\s+(?:at|present|there)|came\s+to)\b", re.I)
_PEOPLE = re.compile(r"\b(?:who|whom|everyone|everybody|people|persons|members|names)\b", re.I)
_TOKEN = re.compile(r"\w+|[^\w\s]")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
# a month named short in a question: "Jan" is also "January" (which a passage spells out)
_MONTH_NAME = {**{name[:3]: name for name in MONTH_NAMES}, "sept": "september"}
_ITEM_BREAK = re.compile(r"[,;]|\band\b")

SentenceTest = Callable[[str, str], float]


def is_question(text: str) -> bool:
    """A question, rather than a statement to find evidence for (a claim to check)."""
    return text.rstrip().endswith("?") or bool(_QUESTION_START.match(text.lstrip()))


def summary_subject(question: str) -> tuple[str, bool] | None:
    """What an overview question asks to be summarised, or None for another question:
    (the subject as named, lower-case and without articles: "" when none is; whether the
    question asks for a summary outright). "What is X about?" and "What does X cover?"
    ask it of a document only when X names one ("this article", a title), which the
    caller decides; "Summarize X" asks it outright."""
    asked = question.strip()
    for pattern, outright in ((_SUMMARY_REQUEST, True), (_ABOUT_QUESTION, False),
                              (_COVER_QUESTION, False)):
        found = pattern.match(asked)
        if found:
            subject = re.sub(r"^(?:the|a|an)\s+", "", found["subject"].strip(" ,:;-"), flags=re.I)
            subject = _THANKS.sub("", subject)
            return subject.lower(), outright
    return None


# What a question asks for, by its opening words ("What time does...", "What is the door
# code...", "What is his e-mail address?"), and what a text that states it holds. The asked
# thing must be the head of the question's opening "what is ... X" (up to five words before
# it), so that "What time are the polonaises written in?" or "Which phone makers..." ask
# for no such value.
_WHAT_IS = r"^\s*(?:what|which)(?:'s|’s|s|\s+(?:is|are|was|were))\s+(?:[\w'’-]+\s+){0,5}?"
_CODE = re.compile(r"\b(?=[\w-]*\d)[\w-]{3,}\b")  # a word with a digit: "4471", "B12-X"
_CLOCK = re.compile(
    r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)|\bnoon\b|\bmidnight\b|o'clock|"
    r"\b(?:half|quarter)\s+(?:past|to)\b|"
    r"\bat\s+(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b", re.I)
_PHONE = re.compile(r"\d{3,}")
_ADDRESS = re.compile(  # a number and a street
    r"\b\d+[a-z]?,?\s+(?:[A-Z][\w'’-]*\s+){1,3}(?:street|st|road|rd|lane|avenue|ave|way|drive|"
    r"place|square|court|close|crescent|terrace|row|hill|parade|boulevard|quay|wharf|walk|"
    r"gardens)\b", re.I)
# an amount of money: a currency, a price's number ("Price: 24.50", "costs 9.90"), "free"
_MONEY = re.compile(r"[£$€¥]|\b\d[\d,.]*\s*(?:pounds?|pence|p|euros?|dollars?|gbp|eur|usd)\b|"
                    r"\b(?:prices?|costs?|fees?|charges?|rates?)\b[^.;\n\d]{0,25}\d|"
                    r"\bfree\b|\bno\s+(?:charge|cost|fee)\b", re.I)
# a date: what says when the next of something is, where "every year" says only how often
_DATE_SAID = re.compile(
    rf"\b(?:1\d|20)\d\d\b|\b\d{{1,2}}(?:st|nd|rd|th)\b|\b\d{{1,2}}/\d{{1,2}}\b|"
    rf"\b(?:{MONTHS})\b|{WEEKDAYS}|\b(?:today|tomorrow|tonight)\b|"
    r"\bnext\s+(?:week|month|year|term|spring|summer|autumn|winter)\b|" + _CLOCK.pattern, re.I)
# a time, however said: a date, a decade, a season, how often, a point relative to another
# ("before", "after", "within", "until", "since")
_TIME_SAID = re.compile(
    _DATE_SAID.pattern + r"|\b(?:1\d|20)\d\ds\b|\b\d+\s*(?:bc|bce|ad|ce)\b|\b(?:spring|summer|"
    r"autumn|fall|winter|christmas|easter|holidays?|half-term|weekends?|weekdays?|yesterday|"
    r"daily|weekly|fortnightly|monthly|quarterly|annually|yearly|each|every|before|"
    r"after|during|until|till|by|within|once|when|whenever|while|since|ago|later|earlier|end|"
    r"start|beginning|morning|afternoon|evening|night|term|weeks?|fortnight|months?|"
    r"quarters?|years?|days?|hours?|minutes?|century|centuries|decades?|era|period|age|times?|"
    r"first|last|next|previous|soon|immediately|now|then|prior|following|upon|advance|"
    r"arrival|notice)\b", re.I)
# what an amount of money is said as, when it is not what was spent ("up to £9,000",
# "quote £23,400", "Estimated cost of full repair: £412,000"): its clause holds one
_NOT_SPENT = re.compile(r"\b(?:up\s+to|quoted?|estimated?|budget(?:ed)?|maximum|at\s+most|"
                        r"no\s+more\s+than|approved?)\b", re.I)
_COST_SPENT = re.compile(r"^\s*(?:how\s+much|what)\s+(?:did|has|have|had)\b.*\bcost", re.I)
_ASKED_VALUES = (  # the words naming the value asked are the group "asked"
    (re.compile(r"^\s*(?:how\s+much\s+(?:did|does|do|will|would|is|was|are|were)\b|"
                r"what\s+(?:did|does|do|will|would)\b(?=.*\bcost\??\s*$))"
                r".*\b(?P<asked>cost(?:s|ing)?)\b", re.I), _MONEY),
    (re.compile(r"^\s*(?:at\s+)?what\s+(?P<asked>time)\s+(?:does|do|did|will|should|can|must|"
                r"would)\b", re.I), _CLOCK),
    (re.compile(_WHAT_IS + r"(?P<asked>(?:alarm|door|entry|access|gate|lock|keypad|safe|"
                r"security|wi-?fi)\s+(?:code|pin|password)|pin|passcode)\b", re.I), _CODE),
    (re.compile(_WHAT_IS + r"(?P<asked>e-?mail(?:\s+address)?)\b", re.I), re.compile(r"@")),
    (re.compile(_WHAT_IS + r"(?P<asked>(?:(?:tele)?phone|mobile|fax)(?:\s+number)?|extension)\b",
                re.I), _PHONE),
    (re.compile(_WHAT_IS + r"(?P<asked>(?:postal\s+|street\s+)?address)\b", re.I), _ADDRESS),
    (re.compile(r"^\s*(?P<asked>when)\b.*\bnext\b", re.I), _DATE_SAID),
    (re.compile(r"^\s*(?P<asked>when)(?:'s|’s|s|\s+(?:is|was|are|were|does|do|did|will|would|"
                r"can|could|should|must|has|have|had|may|might))\b", re.I), _TIME_SAID),
)


def lacks_asked_value(question: str, text: str) -> bool:
    """Whether the question asks for a value of a kind `text` holds none of: an amount of
    money ("How much did the new boiler cost?"), a clock time ("What time does the
    warehouse open?"), a code with a digit, an e-mail address, a phone number or
    extension, a street address, a time however said ("When does the course start?" of
    "Pay for the course, up to £250": no year, date, day or "before"), a date for when the
    next of something is ("When is the next fire drill?" of "Drills are held twice a
    year": how often is not when), an amount spent for what something did cost ("What did
    the survey cost?" of "a survey, up to £9,000": a limit, a quote or an estimate is not
    what it cost)."""
    if _COST_SPENT.search(question):
        return not any(not _NOT_SPENT.search(_clause_before(text, money.end()))
                       for money in _MONEY.finditer(text))
    holds = _asked_value(question)
    return holds is not None and not holds.search(text)


def _clause_before(text: str, at: int) -> str:
    """The words of `text` up to position `at`, back to the start of their clause."""
    return re.split(r"[.;,(\n]", text[:at])[-1]


def names_another_period(question: str, text: str) -> bool:
    """Whether the question asks of a year, a season, a quarter or a month that `text`
    does not name, though it names another of the same kind ("How many parcels did the
    hub issue in 2022?" of "Parcels issued: 5,310 (2023: 4,175)"; "booked for the spring
    term" of "74 sessions booked for the autumn term"): another period's figure is no
    answer. A span of two years, however written ("2024-25", "24/25"), holds each of its
    years, not another span."""
    asked, said = _years(question), _years(text)
    if asked and said and not any(_holds(said, year) for year in asked):
        return True
    return any(of_question and of_text and not of_question & of_text
               for of_question, of_text in zip(_periods(question), _periods(text), strict=True))


def names_another_label(question: str, text: str) -> bool:
    """Whether the question names a thing by a label ("Level 1", "Lift A", "Screen 2")
    whose word `text` uses for labels too, but only with other numbers or letters ("the
    hourly rate for Level 1" of "Raise the rate for Level 2 swim teachers"): the text is
    about another of them. A label is a capitalised word and a number or a capital
    letter, months, weekdays and stopwords apart."""
    said: dict[str, set[str]] = {}
    for word, mark in _LABEL.findall(text):
        if not _NOT_A_LABEL.fullmatch(word):
            said.setdefault(word.lower(), set()).add(mark.lower())
    return any(mark.lower() not in said[word.lower()]
               for word, mark in _ASKED_LABEL.findall(question) if word.lower() in said)


def _periods(text: str) -> tuple[set[str], set[str], set[str]]:
    """The seasons, quarters ("q3") and months ("mar") a text names; a month only when
    capitalised and not a sentence's first word ("May I...?", "staff may" name no May)."""
    seasons = {word.lower() for word in _SEASON.findall(text)}
    quarters = {word.lower() for word in _QUARTER.findall(text)}
    months = {found[1][:3].lower() for found in _MONTH.finditer(text)
              if found[1] != "May" or not _STARTS.search(text[:found.start()])}
    return seasons, quarters, months


def _years(text: str) -> set[str]:
    """The years a text names, a span of two years as one word (`years_as_one_word`)."""
    return {word for word in WORD.findall(years_as_one_word(text))
            if _YEAR.fullmatch(word) or _YEARS.fullmatch(word)}


def _holds(said: set[str], year: str) -> bool:
    """Whether the years said hold the year (or span) asked."""
    return year in said or bool(_span_years(year) & said) or any(
        year in _span_years(other) for other in said)


def _span_years(word: str) -> set[str]:
    """The two years of a span ("years2425": 2024, 2025); none of a year."""
    span = _YEARS.fullmatch(word)
    return {f"20{span[1]}", f"20{span[2]}"} if span else set()


def states_a_value(text: str) -> bool:
    """Whether a line states a clock time, a phone number or a street address (a receipt's
    "14 Quay Street, Esk Harbour"): data, though it has no verb. (A line with only an
    e-mail address or a code is a header or a label: "From: Ines Varga <ines@...>".)"""
    return any(holds.search(text) for holds in (_CLOCK, _PHONE, _ADDRESS))


def _asked_value(question: str) -> re.Pattern[str] | None:
    """What a text that states the value the question asks for holds (_ASKED_VALUES)."""
    return next((holds for asks, holds in _ASKED_VALUES if asks.search(question)), None)


def value_words(question: str, columns: Sequence[str]) -> str:
    """The question's words that name the kind of value it asks for, when one of a row's
    `columns` names a value of the same kind: "mobile" of "What's her mobile?" when a
    column is "phone", though no column is called "mobile"."""
    for asks, holds in _ASKED_VALUES:
        found = asks.search(question)
        if found:
            return found["asked"] if any(_column_kind(name) is holds for name in columns) else ""
    return ""


def _column_kind(column: str) -> re.Pattern[str] | None:
    """The kind of value (`_ASKED_VALUES`) a column's name asks for: "phone" and "Mobile
    no." a phone number, "email" an e-mail address."""
    return _asked_value(f"What is the {column.replace('_', ' ')}?")


def stems(text: str) -> set[str]:
    """The stems of the text's content words, "_" a space (a CSV's column "e_voucher": e,
    voucher)."""
    return {index_term(word) for word in content_words(text.replace("_", " "))}


def content_words(text: str) -> list[str]:
    """The content words of `text`, lower-cased (stopwords left out, and what a contraction
    adds: "I'm", "we've" and "don't" hold no "m", "ve", "don" or "t")."""
    return [word for word in WORD.findall(_CONTRACTION.sub(" ", text.lower()))
            if word not in STOPWORDS]


def asks_a_number(question: str) -> bool:
    """Whether the question asks how many, how much, how long... (a number)."""
    return bool(_NUMBER_QUESTION.search(question))


def answer_type(question: str) -> SentenceTest | None:
    """What kind of answer the question asks for, as a test of (question, sentence);
    None if any kind will do."""
    value = _asked_value(question)
    if value is not None:
        return lambda _, text: float(bool(value.search(text)))
    if _TIME_QUESTION.search(question):
        return lambda _, text: float(bool(_TIME.search(text)))
    if asks_a_number(question):
        return lambda _, text: float(bool(NUMBER.search(text)))
    if _NAME_QUESTION.search(question):
        return has_new_name
    units = tested_units(question)  # "Can I bring 3 guests?": a sentence of guests
    if units:
        return lambda _, text: says_an_amount_of(units, text)
    return None


def has_new_name(question: str, text: str) -> float:
    """Whether the sentence holds a capitalised word (past its first) the question lacks,
    other than a day's or a month's name (a date names no person and no place)."""
    asked = {word.lower() for word in WORD.findall(question)}
    words = WORD.findall(text)[1:]
    return float(any(w[0].isupper() and w.lower() not in asked and not _CALENDAR.fullmatch(w)
                     for w in words))


def asked_verb(question: str) -> str | None:
    """The verb a "who did it" question asks about ("Who has already resigned over the
    recording?" and "Who in the council has resigned?": "resigned"), or None for any
    other question."""
    words = WORD.findall(question.lower())
    if words[:1] != ["who"]:
        return None
    words = words[1:]
    if words and words[0] in STOPWORDS and words[0] not in _BEFORE_VERB:  # "in the council"
        words = words[next((i for i, w in enumerate(words) if w in _BEFORE_VERB), len(words)):]
    for word in words:
        if word in _NOT_A_DOER_QUESTION:
            return None
        if word not in _BEFORE_VERB and not word.endswith("ly"):
            return None if word in STOPWORDS else word
    return None


def names_the_doer(question: str, verb: str, text: str) -> float:
    """Whether the sentence says the asked verb happened and names, just before it,
    someone the question does not: "Martinez and Herrera have since resigned", but not "he
    has no plans to resign", "they called for Herrera to resign", "if Herrera resigns" or
    "calling for de León's resignation". The name stands in the verb's clause: in a table
    row ("Team: Finance; Lead: Tomas Lind") "Lead" names a column, not a deed."""
    asked = {word.lower() for word in WORD.findall(question)}
    return float(any(_doer_in_clause(asked, verb, WORD.findall(clause))
                     for clause in _CLAUSE_BREAK.split(text)))


def _doer_in_clause(asked: set[str], verb: str, words: list[str]) -> bool:
    for i, word in enumerate(words):
        before = words[max(i - DOER_SPAN, 0):i]
        if index_term(word) != index_term(verb) or any(
                w.lower() in _NOT_HAPPENED for w in before) or (
                word.lower().endswith(_NOUN_ENDINGS) and len(word) > len(verb)):
            continue
        if any(w[0].isupper() and w.lower() not in asked | STOPWORDS for w in before):
            return True
    return False


def yes_no_subject(question: str) -> frozenset[str]:
    """The words (lower-case) naming what a yes/no question asks about: the name that
    follows its first word ("Did Kevin de León resign?": kevin, de, león), or else its
    first content word ("Is the office open?": office); empty for other questions."""
    found = YES_NO.match(question)
    if not found:
        return frozenset()
    words = WORD.findall(found["rest"])
    while words and words[0].lower() in STOPWORDS:
        words.pop(0)
    name: list[str] = []
    for word in words:
        if not (word[0].isupper() or (name and word.lower() in _NAME_PARTICLES)):
            break
        name.append(word.lower())
    return frozenset(w for w in name or words[:1] and [words[0].lower()]
                     if w not in _NAME_PARTICLES)


_NAME_PARTICLES = frozenset(("de", "del", "da", "van", "von", "der", "la", "le", "di", "bin"))
# "cant", "dont": typed without the apostrophe
_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without|"
                       r"(?:can|don|doesn|didn|isn|aren|wasn|weren|won)t)\b|n't\b", re.I)


def negated(text: str) -> bool:
    """Whether the text holds a negation ("not", "never", "no", "n't", "without"...)."""
    return bool(_NEGATION.search(text.replace("’", "'")))


def leads_with(subject: frozenset[str], text: str) -> float:
    """Whether the sentence names the subject among its first SUBJECT_SPAN words."""
    return float(bool(subject & {w.lower() for w in WORD.findall(text)[:SUBJECT_SPAN]}))


def is_list_question(question: str) -> bool:
    """Whether the question asks for several things: "List...", "Name everyone...",
    "Which teams are...?"."""
    return bool(_LIST_QUESTION.search(question))


def asks_for_people(question: str) -> bool:
    """Whether the question asks who ("Who was at...?", "Name everyone...")."""
    return bool(_PEOPLE.search(question))


def named_things(question: str, text: str) -> int:
    """How many things of the kind a list question asks for the sentence names: people
    ("Name everyone who...", "Which members...") as full names, runs of two or more
    capitalised words ("Gil Cedillo", "Kevin de León"); other things as names of any
    length, or as items (parts between commas, semicolons and "and") if there are more."""
    tokens = _TOKEN.findall(text)[1:]  # punctuation ends a name: "In Spanish, Berg said"
    runs, length = [], 0
    for word in [*tokens, "."]:
        if word[0].isupper() or (length and word.lower() in _NAME_PARTICLES):
            length += 1
        elif length:
            runs.append(length)
            length = 0
    if asks_for_people(question):
        return sum(run >= 2 for run in runs)
    return max(len(runs), len(_ITEM_BREAK.findall(text)) + 1)


_INITIALS_SKIP = frozenset(("of", "and", "for", "the", "&"))


def spells_out(acronym: str, text: str) -> bool:
    """Whether `text` holds words whose initials spell `acronym` ("dpo": "Data Protection
    Officer", "hse": "Health and Safety Executive"): consecutive words, each capitalised but
    for the small ones ("of", "and", "for", "the") that an acronym skips."""
    letters = acronym.lower()
    if len(letters) < 2 or not letters.isalpha():
        return False
    words = WORD.findall(text)
    for i in range(len(words)):
        spelled, j = "", i
        while j < len(words) and len(spelled) < len(letters):
            word = words[j]
            if word.lower() in _INITIALS_SKIP and spelled:
                j += 1
                continue
            if not word[0].isupper() or word[0].lower() != letters[len(spelled)]:
                break
            spelled += word[0].lower()
            j += 1
        if spelled == letters:
            return True
    return False


def specific_names(question: str) -> list[list[str]]:
    """The names (runs of capitalised words past the question's first word; an acronym
    alone) and numbers of a question, each as its lower-case words, any of which a passage
    must hold for the question to be about it ("What does the UGSS forecast model?":
    [["ugss"]]; an ordinal either way: "4th June": [["4th", "4"], ["june"]]; a month in
    full too: "Jan": [["jan", "january"]])."""
    tokens = _TOKEN.findall(question)[1:]
    names: list[list[str]] = []
    run: list[str] = []
    for token in [*tokens, "."]:
        acronym = len(token) > 1 and token.isupper()
        if (token[0].isupper() or (run and token.lower() in _NAME_PARTICLES)) and not acronym:
            run.append(token.lower())
            continue
        if run:
            words = [w for w in run if w not in STOPWORDS and w not in _NAME_PARTICLES]
            names.append(list(dict.fromkeys(words + [_MONTH_NAME.get(w, w) for w in words])))
            run = []
        if acronym or any(c.isdigit() for c in token):
            names.append(list(dict.fromkeys(  # "4th" or "4": "4th June" of "4 June"
                [token.lower(), _ORDINAL.sub(r"\1", token.lower())])))
    return [name for name in names if name]
