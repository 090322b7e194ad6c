#!/bin/bash
# pytest's verdict as reward.json: the reward (1 when every test passed) and the share of tests passed.
cd /tests
python3 -m pytest -q -p no:cacheprovider --junitxml=/logs/verifier/junit.xml test_outputs.py
status=$?
python3 - "$status" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
status = int(sys.argv[1])
try:
    root = ET.parse("/logs/verifier/junit.xml").getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    tests = int(suite.get("tests", 0)); bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
except Exception:
    tests, bad = 0, 0
share = (tests - bad) / tests if tests else 0.0
with open("/logs/verifier/reward.json", "w") as f:
    json.dump({"reward": 1.0 if status == 0 and tests > 0 else 0.0, "tests_passed_share": share}, f)
PY
