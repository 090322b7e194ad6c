#!/bin/bash
python3 - <<'PY'
import csv, json
from collections import defaultdict
sums = defaultdict(int)
with open("/app/sales.csv") as f:
    for row in csv.DictReader(f):
        sums[row["region"]] += int(row["amount"])
with open("/app/totals.json", "w") as f:
    json.dump(sums, f)
PY
