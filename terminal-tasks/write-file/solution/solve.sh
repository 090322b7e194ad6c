#!/bin/bash
echo 'Hello from a2a-bench!' > /app/greeting.txt
