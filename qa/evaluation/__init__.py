"""Evaluation against public benchmarks: `retrieval` (BEIR: nDCG, recall, MRR and
evidence sentences) and `squad` (SQuAD 2.0: the quote holds the answer, refusals).
"""
