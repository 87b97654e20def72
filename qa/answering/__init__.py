"""Answering: a question and the passages the search found become an answer with citations.

`asking` is the pipeline; it walks the answer kinds of `kinds` in order. The quoted
answer (`quoted`) picks the sentences that answer, `reader` is the trained reader that
scores them, `answerability` decides whether the documents answer at all and `lead`
writes the words said before the quote. `results` holds the result types, `response` the
pieces a chat shows, and `generated` a language model's answer, checked against the
passages.
"""
