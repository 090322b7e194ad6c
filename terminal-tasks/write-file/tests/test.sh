#!/bin/bash
# Reward 1 when /app/greeting.txt holds exactly the line asked for.
if [ "$(cat /app/greeting.txt 2>/dev/null)" = "Hello from a2a-bench!" ] && [ "$(wc -l < /app/greeting.txt)" = 1 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo "greeting.txt is missing or wrong"
  echo 0 > /logs/verifier/reward.txt
fi
