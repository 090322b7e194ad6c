#!/bin/bash
# No time limit of its own: a program too slow runs into the verifier's timeout_sec, which scores 0.
if [ "$(python3 /app/fib.py 2>/dev/null)" = "2880067194370816120" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
