#!/bin/bash
if [ "$(cat /app/message.txt 2>/dev/null)" = "Meet me at the harbor at noon." ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo "message.txt is missing or wrong: $(head -c 200 /app/message.txt 2>&1)"
  echo 0 > /logs/verifier/reward.txt
fi
