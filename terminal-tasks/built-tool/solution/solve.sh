#!/bin/bash
caesar --shift 11 --decode < /app/message.enc > /app/message.txt
