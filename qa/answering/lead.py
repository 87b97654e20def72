"""The answer first: the verdict a yes/no question asks for, a table row's cell, or the
value the reader is sure of.

A quoted answer opens with what a careful reader would say first, when the question asks
for it and the quote decides it:

- a yes/no question ("Did the forklifts pass their brake test?") gets "Yes" when the quote
  holds what was asked and is not negated, "No" when it negates it ("failed", "may not",
  "closed", "unpaid", "must be accompanied" for "on their own": a negation, or an
  opposite), or allows only some ("Only staff who...") what the question asks of any,
  and otherwise says the documents do not say yes or no; an amount the question tests
  is compared with what the quote says of it in the same unit (`qa.answering.quantities`):
  a limit ("cools for at least 36 hours", "at most two guests") answers No to a question
  beyond it ("after 20 hours?", "three guests?") and Yes to one within it, a value or a
  range answers a question that bounds it ("under £13?" of "£13.50": No; "within 6
  weeks?" of "within 42 days": Yes), and a negation turns what the limit allows ("£400?"
  of "We do not accept cash over £500": Yes);
- a question about a table row gets the cell of the column it names most ("What is the
  extension of the Finance team?": "2202"; "footfall at Brackenford in 2025?" of columns
  by site and year: "Brackenford 2025"), and the row is quoted by that cell and the one
  naming the row (`row_excerpt`): exact data, looked up. A question for the
  largest, a total or a difference gets none: one row does not answer it (`qa` computes
  such answers from the whole table, or says nothing first);
- any other question gets the words the reader (`qa.answering.reader`) points at, when it
  is sure of them (`qa.answering.answerability.Model.span_margin`) and the quote holds
  them. Rules that took a number, a date, a name or a place from the quote by the
  question's first words were wrong in two answers of three on SQuAD's held-out articles
  (docs/figures.md), so no value is guessed: an answer the reader is unsure of opens with
  its quote, and a quote too long to take in at a glance (over EXCERPT_WORDS words) with
  its clause that holds the reader's span (`excerpt`): the quote's own words, "…" where
  they are cut, and the whole quote after them.

Every word said first is taken verbatim from the quote, so the first sentence is as
traceable as the quote it comes from.
"""

import re

from qa.answering.quantities import bounds, decides, in_digits, names_money, points, untested
from qa.answering.question_kinds import (
    answer_type,
    asks_a_number,
    content_words,
    negated,
    specific_names,
    stems,
    value_words,
    yes_no_subject,
)
from qa.indexing.chunking import split_sentences
from qa.loaders.cells import parse_cell
from qa.loaders.tables import row_fields
from qa.stemming import index_term
from qa.words import PRONOUNS, WORD, YES_NO, any_of, years_as_one_word

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
    ("alone", "supervised"), ("own", "supervised"), ("unsupervised", "supervised"),
    ("free", "charged"), ("free", "paid"), ("free", "pay"), ("true", "false"), ("alive", "dead"),
    ("public", "private"), ("required", "optional"), ("mandatory", "optional"),
)
OPPOSITES: dict[str, set[str]] = {}
# words that only look like a word with un-, in- or dis- before it: "until" is "till"
_FALSE_OPPOSITES = frozenset(index_term(word) for word in (
    "until", "inform", "income", "indoor", "inside", "insight", "invest", "instance",
    "intake", "input", "discount", "display", "dismiss", "distance", "disease"))
for _pair in _PAIRS:
    _a, _b = (index_term(word) for word in _pair)
    OPPOSITES.setdefault(_a, set()).add(_b)
    OPPOSITES.setdefault(_b, set()).add(_a)

# the words of duty and of leave: a question may ask in one ("compulsory?", "ok to...?")
# what the quote says in another ("mandatory", "may", "must not" for a No); a duty implies
# leave ("must attend" answers "allowed to attend?"), leave no duty
_DUTY = {"must", "mandatory", "compulsory", "obligatory", "required", "necessary", "need",
         "needs", "needed"}
_LEAVE = {"may", "can", "allowed", "permitted", "ok", "okay"}
DUTY, LEAVE = "<duty>", "<leave>"
OPPOSITES[DUTY] = {index_term("optional"), index_term("voluntary")}
OPPOSITES[LEAVE] = OPPOSITES[index_term("allowed")] | OPPOSITES[index_term("permitted")]
_CHOICE = re.compile(r"\bor\b", re.I)  # "Is it X or Y?" asks which, not whether
_AGGREGATE = re.compile(r"\b(?:largest|smallest|biggest|highest|lowest|most|least|fewest|"
                        r"total|sum|average|mean|more|less|fewer)\b", re.I)
_REFERS_BACK = re.compile(any_of(PRONOUNS), re.I)
_ALL = re.compile(r"\b(?:any|anyone|anybody|every|everyone|everybody|all|always)\b", re.I)
_ONLY = re.compile(r"\b(?:only|solely|exclusively)\b", re.I)
_BY = re.compile(r"\bby\b", re.I)
# who alone may do what: "Only the Head of Housing may authorise ..."
_ONLY_MAY = re.compile(r"\bonly\s+(?P<who>(?:[\w'-]+\s+){1,8}?)(?:may|can|is allowed to|"
                       r"are allowed to|is permitted to|are permitted to)\s+(?P<done>\w+)", re.I)
# a long quote opens with the clause that holds the reader's span: what a glance takes in
EXCERPT_WORDS, EXCERPT_MIN_WORDS = 12, 6
_NON_SPACE = re.compile(r"\S+")
_CLAUSE_BREAK = re.compile(r"[;–—]|\s-\s|,\s+(?:but|whereas)\b", re.I)
# what a clause makes an exception of, up to its verb or a mark: "except mileage",
# "except guide dogs", "apart from managers" (in "... apart from managers must sign")
_EXCEPT = re.compile(
    r"\b(?:except(?:\s+for)?|other\s+than|apart\s+from|excluding|with\s+the\s+exception\s+of)"
    r"\s+(?P<what>[^,.;:!?()]*?)(?=\s+(?:must|may|can|cannot|will|shall|should|is|are|need|"
    r"needs|have|has|do|does|get|gets)\b|[,.;:!?()]|$)", re.I)
_CLAUSE_MARKS = ",;:()–—"
# what is asked as an amount of money, though the question says no "how much"
_MONEY_ASKED = re.compile(r"\b(?:rents?|rates?|fees?|prices?|costs?|charges?|salar(?:y|ies)|"
                          r"wages?|pay|deposits?|fines?)\b", re.I)


def lead(question: str, quote: str, before: str = "",
         span: tuple[int, int] | None = None, decided: bool = False) -> str | None:
    """What the answer to `question` says first, from `quote`: "Yes", "No", NO_VERDICT, a
    table row's cell, the words of the reader's `span` (offsets in the quote, given when
    it is sure of them), or None.
    `before`: the sentence before the quote, which may name what its "it" stands for ("The
    board approved it..."). `decided`: the verifier reads the quote as answering the
    question (`verdict`)."""
    if YES_NO.match(question) and not _CHOICE.search(question):
        return verdict(question, quote, before, decided)
    if row_fields(quote) is not None:  # a table row: only the cell of the column asked for
        return None if _AGGREGATE.search(question) else row_value(question, quote)
    return quote[span[0]:span[1]] if span else None


def excerpt(quote: str, start: int, end: int) -> str | None:
    """The clause of a long quote that holds the reader's span (`start`, `end`: offsets in
    the quote), verbatim, with "…" where it is cut: at least EXCERPT_MIN_WORDS and at most
    EXCERPT_WORDS words, joined with the clauses after it, then before it, while they fit,
    else the words around the span. None for a quote short enough to read whole, a table
    row, or a span longer than an excerpt."""
    words = [(m.start(), m.end()) for m in _NON_SPACE.finditer(quote)]
    inside = [i for i, (a, b) in enumerate(words) if a < end and b > start]
    if (len(words) <= EXCERPT_WORDS or not inside or len(inside) > EXCERPT_WORDS
            or row_fields(quote) is not None):
        return None
    first, last = _clause_of(quote, words, inside[0], inside[-1])
    while last - first + 1 > EXCERPT_WORDS:  # a long clause: the words around the span
        if last > inside[-1] and (last - inside[-1] >= inside[0] - first):
            last -= 1
        else:
            first += 1
    text = " ".join(quote[words[first][0]:words[last][1]].strip(_CLAUSE_MARKS + " ").split())
    cut_after = quote[words[last][1]:].strip(" .!?\"'”’)")
    return f"{'…' if first else ''}{text}{'…' if cut_after else ''}"


def excerpt_keeps(question: str, clause: str, quote: str) -> bool:
    """Whether an excerpt of the quote holds the kind of value the question asks for when
    the quote does: a number for "How many...?", a time for "When...?" (`answer_type`), an
    amount of money for a price, fee, rent or pay ("What annual rent is the landlord
    asking?" is not opened with "…a new lease from 1 April at a rent of…")."""
    kinds = [test for test in (answer_type(question),) if test is not None]
    if _MONEY_ASKED.search(question):
        kinds.append(lambda _, text: float(names_money(text)))
    return not any(test(question, quote) and not test(question, clause) for test in kinds)


def _clause_of(quote: str, words: list[tuple[int, int]], first: int,
               last: int) -> tuple[int, int]:
    """The words (first, last index) of the clauses around words `first` to `last`: their
    own clause, then the next clauses and the ones before while the whole stays within
    EXCERPT_WORDS, then single words after it or before it, until it holds at least
    EXCERPT_MIN_WORDS; all within the sentence of the quote that holds them."""
    # the sentence of the span (as chunking splits them: "John B. Goodenough" is not cut)
    begin, end = next(((a, b) for a, b in split_sentences(quote) if a <= words[first][0] < b),
                      (0, len(quote)))
    inside = [i for i, (a, b) in enumerate(words) if begin <= a < end]
    start, stop = inside[0], inside[-1]
    last = min(max(last, start), stop)
    ends = [quote[b - 1] for _, b in words]
    breaks = {i for i in range(start, stop + 1) if ends[i] in _CLAUSE_MARKS} | {stop}
    while first > start and first - 1 not in breaks:
        first -= 1
    while last not in breaks:
        last += 1
    while last - first + 1 < EXCERPT_MIN_WORDS:
        after = min(i for i in breaks if i > last) if last < stop else stop
        before = max((i + 1 for i in breaks if i < first - 1), default=start)
        if last < stop and after - first + 1 <= EXCERPT_WORDS:
            last = after
        elif first > start and last - before + 1 <= EXCERPT_WORDS:
            first = before
        elif last < stop:  # no whole clause fits: the words that follow
            last += 1
        elif first > start:
            first -= 1
        else:
            break
    return first, last


def verdict(question: str, quote: str, before: str = "", decided: bool = False) -> str:
    """"Yes" when the quote holds the content words of the question (by stem) with the
    same polarity, "No" when it negates them, holds an opposite of one (OPPOSITES, or the word with
    un-, non-, in- or dis-) or limits to some ("only") what the question asks of any or
    all; when what it says of an amount in the question's unit decides the question
    (`decides`, for a table row the cell asked of; a negation just before it turns it:
    "does not accept ... over £500"), "Yes" or "No", a Yes only when the quote names
    what the question asks about (`yes_no_subject`: not "Can trainees...?" of "Qualified
    staff may..."); else NO_VERDICT. The words of
    `before`, the sentence before the quote, count as said when the quote refers back to
    it ("it", "this"); its polarity does not. Of a table row only what names it and the
    cell asked of are read (`row_excerpt`): "Saturday: 09:00–12:00" answers "open on
    Saturdays?", whatever the Sunday cell says ("Closed").
    Small numbers are the same in words and digits ("4 weeks", "four weeks").

    `decided`: the verifier (`qa.answering.verifier`), a model trained to tell whether a
    sentence answers a question, reads the quote as answering it. Then a negation or a
    limit decides the verdict though the quote words the question otherwise ("Do we pay a
    deposit?" of "We do not ask for a deposit"), and a "Yes" needs every name and number
    asked but not every word ("Can I take my bike on the 41?" of "On route 41 up to two
    bicycles can be carried free"): the model's reading, not the words, says the quote
    answers, and the verdict rests on no negation being there. Unread, a "Yes" needs every
    word asked."""
    quote = row_excerpt(question, quote) or quote  # a row: the cell asked of, not the others
    asked = {_modal(word) for word in content_words(in_digits(question))}
    own = {index_term(word) for word in content_words(in_digits(quote))} | _modals(quote)
    said = own | ({index_term(word) for word in content_words(in_digits(before))}
                  if _REFERS_BACK.search(quote) else set())
    opposite = {index_term(prefix + word) for word in content_words(question)
                for prefix in ("un", "non", "in", "dis")} - _FALSE_OPPOSITES  # "paid": "unpaid"
    if any(OPPOSITES.get(word, set()) & own - asked for word in asked) or opposite & own:
        return "No"
    if _ALL.search(question) and _ONLY.search(quote):  # "Can anyone...?" "Only staff who..."
        return "No"
    if someone_else(question, quote):  # "Can a clerk sign?" "Only a partner may sign"
        return "No"
    cell = row_value(question, quote) if row_fields(quote) else None  # the cell asked of
    # the amounts of the clause of what is asked: a fit note's "from the eighth day", not
    # the self-certification's "up to seven days" before it
    amounts_of = cell or deciding_clause(asked, quote)
    within = decides(question, amounts_of)  # "no more than" is no negation here
    exact = within is None  # then an amount the quote says alone may decide it
    if exact:  # "every 3 years?" of "refresh it every two years"
        within = decides(question, amounts_of, exact=True)
    tested = asked - {_modal(word) for word in content_words(untested(question))}
    if within is not None:  # the amount is compared: its words need not be said
        asked -= tested
    missing = asked - said
    subject = {_modal(word) for word in yes_no_subject(question)
               if not word[0].isdigit()} - {DUTY, LEAVE}  # not "14" of "a 14-year-old"
    if within is False and not exact and subject and subject <= said:
        return "No"  # a limit set on who is asked of, which the amount is past, decides it
    if (len(missing) > max(1, len(asked) // 3) or _has_digits(tested & missing)
            and not bounds(amounts_of)) and not decided:  # nor, by its words, a number
        return NO_VERDICT  # the quote neither says nor bounds ("£25?" of "not £30")
    if within is not None:  # a Yes, or a No of another amount, is of what is asked about
        within = within != excepts(asked, amounts_of, question)  # "20% off, except Sundays"
        if not within and not exact:
            return "No"
        return ("Yes" if within else "No") if _all_said(
            question, subject - said, decided) else NO_VERDICT
    clause = cell or deciding_clause(asked, quote)  # of a row, the cell asked of decides
    if negated(clause) != negated(question) ^ excepts(asked, clause, question):
        return "No"
    return "Yes" if _all_said(question, missing, decided) else NO_VERDICT


def excepts(asked: set[str], clause: str, question: str) -> bool:
    """Whether the clause makes an exception of what is asked, and so says the opposite
    of it: "Receipts are required for every item except mileage" of "Do I need receipts
    for mileage?" (No); "No pets are allowed except guide dogs" of "Are guide dogs
    allowed?" (Yes). Only a word asked that the exception names and the rest of the clause
    does not counts ("All staff except managers clock in" excepts no one of "Do staff
    clock in?"), and no word of an amount ("my 14 year old" is not "New Year"); a
    question that itself says "except" is read as it says."""
    found = _EXCEPT.search(clause)
    if found is None or _EXCEPT.search(question):
        return False
    rest = clause[:found.start()] + clause[found.end():]
    amounts = {term for amount in points(question)  # "my 14 year old" names no New Year
               for term in _terms(question[amount.start:amount.end])}
    return bool(asked & _terms(found["what"]) - _terms(rest) - amounts)


def deciding_clause(asked: set[str], quote: str) -> str:
    """The clause of the quote that holds most of the `asked` words (stems, DUTY, LEAVE),
    as clauses part at a sentence's end, a semicolon, a dash or ", but" (not a colon,
    which joins a name to its value: "Dogs allowed: No"): a
    negation decides only what its own clause says ("Attendance at the final rehearsal
    is mandatory; a player who misses it will not play": "mandatory?" is not negated).
    The whole quote when two clauses hold as many."""
    clauses = [part for begin, end in split_sentences(quote)
               for part in _CLAUSE_BREAK.split(quote[begin:end]) if part.strip()]
    held = [len(asked & ({index_term(w) for w in content_words(in_digits(clause))}
                         | _modals(clause))) for clause in clauses]
    best = max(held, default=0)
    return clauses[held.index(best)] if held.count(best) == 1 else quote


def _all_said(question: str, missing: set[str], decided: bool) -> bool:
    """Whether a quote says what a Yes needs: every word asked or, when the verifier reads
    it as answering ("Do I have to wear hi-vis in the yard?" of "Hi-vis vests are
    mandatory in all yard areas"), every name and number of the question, which say which
    thing it asks about ("screen 2" of "Screen 1 only")."""
    named = {index_term(word) for name in specific_names(question) for word in name}
    return not missing or decided and not missing & named


def someone_else(question: str, quote: str) -> bool:
    """Whether the quote allows only someone ("Only the Head of Finance may sign ...") what
    the question asks of someone it does not name ("Can the office manager sign ...?"): the
    words of the question before the first one of what is done (by stem: the verb or what
    it is done to, "Can a porter go into the plant room?" of "Only engineers may enter the
    plant room") share none with who may do it."""
    only = _ONLY_MAY.search(quote)
    asked = YES_NO.match(question)
    if only is None or asked is None or _BY.search(asked["rest"]) or any(
            c.isdigit() for c in only["who"]):
        return False  # "Can refunds be authorised by ...?"; "Only 2 guests may ..."
    done = {index_term(word) for word in content_words(quote[only.start("done"):])}
    words = WORD.findall(asked["rest"])  # who is asked of: the words before what is done
    at = next((i for i, word in enumerate(words) if index_term(word) in done), None)
    who = {index_term(word) for word in content_words(" ".join(words[:at or 0]))}
    return bool(who) and not who & {index_term(w) for w in content_words(only["who"])}


def _has_digits(words: set[str]) -> bool:
    return any(char.isdigit() for word in words for char in word)


def _modal(word: str) -> str:
    """The word's stem, or DUTY or LEAVE for a word of either ("compulsory": DUTY)."""
    return DUTY if word in _DUTY else LEAVE if word in _LEAVE else index_term(word)


def _modals(text: str) -> set[str]:
    """DUTY and LEAVE as the text says them, stopwords too ("must": both; "may": LEAVE)."""
    words = set(WORD.findall(text.lower()))
    return ({DUTY, LEAVE} if words & _DUTY else set()) | ({LEAVE} if words & _LEAVE else set())


def row_value(question: str, quote: str) -> str | None:
    """A table row's cell in the column the question names (`asked_column`); none that is
    a date for a question that asks how many or how much ("How many coaches are in the
    annual test due dates table?" is no test's date)."""
    row = row_fields(quote)
    if row is None:
        return None
    column = asked_column(question, row[1])
    value = None if column is None else row[1][column][1].rstrip(".")
    return None if value is None or asks_a_number(question) and \
        parse_cell(value).kind == "date" else value


def asked_column(question: str, fields: list[tuple[str, str]]) -> int | None:
    """Which of a row's (column, value) fields the question asks for: the one whose column
    shares most words with it ("footfall at Brackenford in July 2025?": "Brackenford
    2025", not "Brackenford 2024"; "café takings?": "Ashcombe – Café"), not counting words
    every column holds, nor a field whose value the question names a word of (beyond its
    column's name): the row's key, "July", or "Individual lesson, 45 minutes" of "a 45 min
    individual lesson". With no column named, the one column of the kind of value asked ("her
    mobile?": "phone"). None when no column or two columns alike are named."""
    asked = _terms(question)
    names = [_terms(column) for column, _ in fields]
    shared = set.intersection(*names) if names else set()
    values = [_terms(value) for _, value in fields]  # "No" holds none, so no name it asks
    overlap = [len((named - shared) & asked) if not (value - named) & asked else 0
               for named, value in zip(names, values, strict=True)]
    best = max(overlap, default=0)
    if not best:  # "her mobile?": the one column of a phone number (`value_words`)
        kind = [i for i, (name, _) in enumerate(fields) if value_words(question, [name])]
        return kind[0] if len(kind) == 1 else None
    return overlap.index(best) if overlap.count(best) == 1 else None


def row_excerpt(question: str, quote: str) -> str | None:
    """A table row shown by the cells asked for: its caption, its first cell (what names
    the row) and the cell of the column asked for ("Footfall: Month: July; Brackenford
    2025: 9,310."), when the row has other cells; else None."""
    row = row_fields(quote)
    column = None if row is None else asked_column(question, row[1])
    if row is None or column is None or len(row[1]) <= 2:
        return None
    caption, fields = row
    cells = "; ".join(f"{name}: {value}" for name, value in dict.fromkeys(
        [fields[0], fields[column]]))
    return f"{caption}: {cells}." if caption else f"{cells}."


def _terms(text: str) -> set[str]:
    """The stems of the text's content words, two years one word ("24/25": "2024-25"), "_"
    a space (a CSV's column "branch_b_price")."""
    return stems(years_as_one_word(text))
