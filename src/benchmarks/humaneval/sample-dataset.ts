/**
 * The embedded `sample` set: 12 HumanEval-format problems written for this
 * project (not taken from OpenAI's set), so a fresh clone can run end to end
 * with no download. Same fields and conventions as HumanEval: the prompt ends
 * inside the function after its docstring, `canonical_solution` is the body,
 * `test` defines `check(candidate)`.
 */
import type { HumanEvalProblem } from "./problem.js";

export const SAMPLE_PROBLEMS: readonly HumanEvalProblem[] = [
  {
    task_id: "A2ABench/0",
    entry_point: "running_max",
    prompt: `from typing import List


def running_max(values: List[int]) -> List[int]:
    """Return the running maximum: element i is the largest of values[0..i].
    >>> running_max([1, 3, 2, 5, 4])
    [1, 3, 3, 5, 5]
    >>> running_max([])
    []
    """
`,
    canonical_solution: `    result = []
    best = None
    for v in values:
        best = v if best is None or v > best else best
        result.append(best)
    return result
`,
    test: `

def check(candidate):
    assert candidate([1, 3, 2, 5, 4]) == [1, 3, 3, 5, 5]
    assert candidate([]) == []
    assert candidate([-2, -5, -1]) == [-2, -2, -1]
    assert candidate([7]) == [7]
`,
  },
  {
    task_id: "A2ABench/1",
    entry_point: "count_vowel_words",
    prompt: `

def count_vowel_words(sentence: str) -> int:
    """Count the words of a sentence (split on whitespace) that start with a vowel,
    ignoring case. Vowels are a, e, i, o, u.
    >>> count_vowel_words("An apple is on the table")
    4
    >>> count_vowel_words("")
    0
    """
`,
    canonical_solution: `    return sum(1 for w in sentence.split() if w[0].lower() in "aeiou")
`,
    test: `

def check(candidate):
    assert candidate("An apple is on the table") == 4
    assert candidate("") == 0
    assert candidate("   Umbrella   under   sky ") == 2
    assert candidate("xyz") == 0
    assert candidate("Eagle owl ibis") == 3
`,
  },
  {
    task_id: "A2ABench/2",
    entry_point: "rle_encode",
    prompt: `

def rle_encode(text: str) -> str:
    """Run-length encode a string: each run of a repeated character becomes the
    count followed by the character; runs of length 1 keep the count too.
    >>> rle_encode("aaabcc")
    '3a1b2c'
    >>> rle_encode("")
    ''
    """
`,
    canonical_solution: `    if not text:
        return ""
    out = []
    current, count = text[0], 1
    for ch in text[1:]:
        if ch == current:
            count += 1
        else:
            out.append(f"{count}{current}")
            current, count = ch, 1
    out.append(f"{count}{current}")
    return "".join(out)
`,
    test: `

def check(candidate):
    assert candidate("aaabcc") == "3a1b2c"
    assert candidate("") == ""
    assert candidate("z") == "1z"
    assert candidate("aaaaaaaaaaaa") == "12a"
    assert candidate("abab") == "1a1b1a1b"
`,
  },
  {
    task_id: "A2ABench/3",
    entry_point: "is_balanced",
    prompt: `

def is_balanced(expr: str) -> bool:
    """Return True when every bracket in expr ( ), [ ], { } is closed in the
    right order; other characters are ignored.
    >>> is_balanced("a(b[c]{d})")
    True
    >>> is_balanced("(]")
    False
    """
`,
    canonical_solution: `    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in expr:
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack
`,
    test: `

def check(candidate):
    assert candidate("a(b[c]{d})") is True
    assert candidate("(]") is False
    assert candidate("") is True
    assert candidate("((") is False
    assert candidate("}{") is False
    assert candidate("{[()()]}") is True
`,
  },
  {
    task_id: "A2ABench/4",
    entry_point: "digit_root",
    prompt: `

def digit_root(n: int) -> int:
    """Repeatedly sum the decimal digits of a non-negative integer until a single
    digit remains.
    >>> digit_root(9875)
    2
    >>> digit_root(0)
    0
    """
`,
    canonical_solution: `    while n >= 10:
        n = sum(int(d) for d in str(n))
    return n
`,
    test: `

def check(candidate):
    assert candidate(9875) == 2
    assert candidate(0) == 0
    assert candidate(9) == 9
    assert candidate(10) == 1
    assert candidate(999999999999) == 9
`,
  },
  {
    task_id: "A2ABench/5",
    entry_point: "merge_intervals",
    prompt: `from typing import List, Tuple


def merge_intervals(intervals: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """Merge overlapping or touching closed intervals (start <= end) and return
    them sorted by start.
    >>> merge_intervals([(5, 7), (1, 3), (2, 4)])
    [(1, 4), (5, 7)]
    >>> merge_intervals([(1, 2), (2, 3)])
    [(1, 3)]
    """
`,
    canonical_solution: `    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
`,
    test: `

def check(candidate):
    assert candidate([(5, 7), (1, 3), (2, 4)]) == [(1, 4), (5, 7)]
    assert candidate([(1, 2), (2, 3)]) == [(1, 3)]
    assert candidate([]) == []
    assert candidate([(1, 10), (2, 3), (4, 5)]) == [(1, 10)]
    assert candidate([(3, 3)]) == [(3, 3)]
`,
  },
  {
    task_id: "A2ABench/6",
    entry_point: "caesar_shift",
    prompt: `

def caesar_shift(text: str, k: int) -> str:
    """Shift each ASCII letter k places along the alphabet, wrapping around and
    keeping its case; other characters are unchanged. k may be negative.
    >>> caesar_shift("Hello, World!", 3)
    'Khoor, Zruog!'
    >>> caesar_shift("abc", -1)
    'zab'
    """
`,
    canonical_solution: `    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr((ord(ch) - 97 + k) % 26 + 97))
        elif "A" <= ch <= "Z":
            out.append(chr((ord(ch) - 65 + k) % 26 + 65))
        else:
            out.append(ch)
    return "".join(out)
`,
    test: `

def check(candidate):
    assert candidate("Hello, World!", 3) == "Khoor, Zruog!"
    assert candidate("abc", -1) == "zab"
    assert candidate("xyz", 29) == "abc"
    assert candidate("", 5) == ""
    assert candidate("Ünï 1", 1) == "Üoï 1"
`,
  },
  {
    task_id: "A2ABench/7",
    entry_point: "second_largest",
    prompt: `from typing import List, Optional


def second_largest(values: List[int]) -> Optional[int]:
    """Return the second largest distinct value, or None when there are fewer
    than two distinct values.
    >>> second_largest([4, 1, 4, 3])
    3
    >>> second_largest([2, 2])
    """
`,
    canonical_solution: `    distinct = sorted(set(values), reverse=True)
    return distinct[1] if len(distinct) >= 2 else None
`,
    test: `

def check(candidate):
    assert candidate([4, 1, 4, 3]) == 3
    assert candidate([2, 2]) is None
    assert candidate([]) is None
    assert candidate([-1, -7, -3]) == -3
    assert candidate([10, 9]) == 9
`,
  },
  {
    task_id: "A2ABench/8",
    entry_point: "word_frequencies",
    prompt: `from typing import Dict


def word_frequencies(text: str) -> Dict[str, int]:
    """Count lower-cased words, where a word is a maximal run of ASCII letters.
    >>> word_frequencies("The cat; the hat.")
    {'the': 2, 'cat': 1, 'hat': 1}
    """
`,
    canonical_solution: `    import re
    counts = {}
    for word in re.findall(r"[A-Za-z]+", text):
        w = word.lower()
        counts[w] = counts.get(w, 0) + 1
    return counts
`,
    test: `

def check(candidate):
    assert candidate("The cat; the hat.") == {"the": 2, "cat": 1, "hat": 1}
    assert candidate("") == {}
    assert candidate("a1a2A") == {"a": 3}
    assert candidate("It's it") == {"it": 2, "s": 1}
`,
  },
  {
    task_id: "A2ABench/9",
    entry_point: "matrix_transpose",
    prompt: `from typing import List


def matrix_transpose(matrix: List[List[int]]) -> List[List[int]]:
    """Transpose a rectangular matrix given as a list of rows.
    >>> matrix_transpose([[1, 2, 3], [4, 5, 6]])
    [[1, 4], [2, 5], [3, 6]]
    >>> matrix_transpose([])
    []
    """
`,
    canonical_solution: `    if not matrix:
        return []
    return [[row[j] for row in matrix] for j in range(len(matrix[0]))]
`,
    test: `

def check(candidate):
    assert candidate([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]
    assert candidate([]) == []
    assert candidate([[7]]) == [[7]]
    assert candidate([[1], [2], [3]]) == [[1, 2, 3]]
`,
  },
  {
    task_id: "A2ABench/10",
    entry_point: "nth_prime",
    prompt: `

def nth_prime(n: int) -> int:
    """Return the n-th prime number, counting from 1 (nth_prime(1) == 2).
    >>> nth_prime(1)
    2
    >>> nth_prime(6)
    13
    """
`,
    canonical_solution: `    count = 0
    candidate = 1
    while count < n:
        candidate += 1
        if all(candidate % p for p in range(2, int(candidate ** 0.5) + 1)):
            count += 1
    return candidate
`,
    test: `

def check(candidate):
    assert candidate(1) == 2
    assert candidate(2) == 3
    assert candidate(6) == 13
    assert candidate(100) == 541
    assert candidate(1000) == 7919
`,
  },
  {
    task_id: "A2ABench/11",
    entry_point: "compress_ranges",
    prompt: `from typing import List


def compress_ranges(values: List[int]) -> str:
    """Describe a sorted list of distinct integers as comma-separated ranges:
    runs of 3 or more consecutive numbers become "a-b", others stay single.
    >>> compress_ranges([1, 2, 3, 5, 7, 8, 9, 10])
    '1-3,5,7-10'
    >>> compress_ranges([4, 5])
    '4,5'
    """
`,
    canonical_solution: `    parts = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{values[i]}-{values[j]}")
        else:
            parts.extend(str(v) for v in values[i:j + 1])
        i = j + 1
    return ",".join(parts)
`,
    test: `

def check(candidate):
    assert candidate([1, 2, 3, 5, 7, 8, 9, 10]) == "1-3,5,7-10"
    assert candidate([4, 5]) == "4,5"
    assert candidate([]) == ""
    assert candidate([-3, -2, -1, 0]) == "-3-0"
    assert candidate([1, 3, 5]) == "1,3,5"
`,
  },
];
