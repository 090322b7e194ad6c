"""caesar: shift letters of stdin by --shift (default 3); --decode shifts back."""
import argparse
import sys

parser = argparse.ArgumentParser(prog="caesar", description=__doc__)
parser.add_argument("--shift", type=int, default=3)
parser.add_argument("--decode", action="store_true")
args = parser.parse_args()
shift = -args.shift if args.decode else args.shift
out = []
for ch in sys.stdin.read():
    if "a" <= ch <= "z":
        out.append(chr((ord(ch) - 97 + shift) % 26 + 97))
    elif "A" <= ch <= "Z":
        out.append(chr((ord(ch) - 65 + shift) % 26 + 65))
    else:
        out.append(ch)
sys.stdout.write("".join(out))
