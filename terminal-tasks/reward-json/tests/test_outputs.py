import csv
import json
import os
from collections import defaultdict


def expected():
    sums = defaultdict(int)
    with open("/app/sales.csv") as f:
        for row in csv.DictReader(f):
            sums[row["region"]] += int(row["amount"])
    return dict(sums)


def test_totals_file_is_json():
    with open("/app/totals.json") as f:
        assert isinstance(json.load(f), dict)


def test_totals_match():
    with open("/app/totals.json") as f:
        assert json.load(f) == expected()


def test_grand_total():
    with open("/app/totals.json") as f:
        assert sum(json.load(f).values()) == int(os.environ["EXPECTED_TOTAL"])
