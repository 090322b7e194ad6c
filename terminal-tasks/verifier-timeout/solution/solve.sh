#!/bin/bash
cat > /app/fib.py <<'PY'
a, b = 1, 1
for _ in range(88):
    a, b = b, a + b
print(b)
PY
