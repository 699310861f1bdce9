#!/usr/bin/env python3
"""Prints N AidanBench questions as JSON lines: the paper's 65, each asked again under numbered variants
("... (variant 2)"), in that order, for sweeps larger than the published question sets.

    python3 bench/question_variants.py N > questions.jsonl
"""
import json
import os
import sys

want = int(sys.argv[1])
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
with open(os.path.join(root, "datasets/aidanbench/questions-paper-65.jsonl")) as f:
    base = [json.loads(line) for line in f if line.strip()]
n = 0
for variant in range(1, 1000):
    for q in base:
        if n == want:
            sys.exit(0)
        print(json.dumps({"id": f"{q['id']}-v{variant}", "question": f"{q['question']} (variant {variant})"}))
        n += 1
