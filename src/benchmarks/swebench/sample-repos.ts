/**
 * The embedded SWE-bench-style instance set, written for this project: tiny
 * Python repositories, each with a real bug, a test that fails because of it,
 * tests that pass before and after, and the fix. sample-dataset.ts turns these
 * into git repositories and SWE-bench instances (patches and commit hashes are
 * computed from real commits when the set is materialised).
 */

export interface SampleRepoSpec {
  instance_id: string;
  repo: string;
  problem_statement: string;
  /** Files of the base commit. */
  base: Record<string, string>;
  /** Changed/added source files of the fix (becomes `patch`). */
  fix: Record<string, string>;
  /** Changed/added test files (becomes `test_patch`). */
  tests: Record<string, string>;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
}

const PYTEST_INI = "[pytest]\npythonpath = .\n";

const SLUG_BASE =
  String.raw`import re


def slugify(text, sep="-"):
    """Turn text into a URL slug: lower-case words joined by ` +
  "`sep`" +
  String.raw`."""
    words = re.split(r"[^A-Za-z0-9]", text)
    return sep.join(w.lower() for w in words)
`;

const SLUG_FIX =
  String.raw`import re


def slugify(text, sep="-"):
    """Turn text into a URL slug: lower-case words joined by ` +
  "`sep`" +
  String.raw`."""
    words = re.split(r"[^A-Za-z0-9]+", text)
    return sep.join(w.lower() for w in words if w)
`;

const SLUG_TESTS_BASE = `from textkit import slugify


def test_lowercases():
    assert slugify("Hello") == "hello"


def test_custom_separator():
    assert slugify("a b", sep="_") == "a_b"
`;

const SLUG_TESTS_NEW =
  SLUG_TESTS_BASE +
  `

def test_punctuation_collapses():
    assert slugify("Hello, World!") == "hello-world"


def test_strips_edges():
    assert slugify("  spaced out  ") == "spaced-out"
`;

const CHUNK_BASE = `def chunked(seq, size):
    """Split seq into lists of length size; the last one may be shorter."""
    if size < 1:
        raise ValueError("size must be >= 1")
    return [list(seq[i:i + size]) for i in range(0, len(seq) - size + 1, size)]
`;

const CHUNK_FIX = `def chunked(seq, size):
    """Split seq into lists of length size; the last one may be shorter."""
    if size < 1:
        raise ValueError("size must be >= 1")
    return [list(seq[i:i + size]) for i in range(0, len(seq), size)]
`;

const CHUNK_TESTS_BASE = `import sys

import pytest

from chunker.core import chunked


def test_even_split():
    assert chunked([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]


def test_rejects_zero():
    with pytest.raises(ValueError):
        chunked([1], 0)


@pytest.mark.skipif(sys.maxsize > 0, reason="documents a platform-specific case that never runs here")
def test_platform_specific():
    assert False
`;

const CHUNK_TESTS_NEW =
  CHUNK_TESTS_BASE +
  `

def test_remainder_kept():
    assert chunked([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_shorter_than_size():
    assert chunked("ab", 5) == [["a", "b"]]
`;

const CAL_BASE = `def is_leap_year(year):
    """Gregorian leap year rule."""
    return year % 4 == 0


def days_in_month(year, month):
    if month == 2:
        return 29 if is_leap_year(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31
`;

const CAL_FIX = `def is_leap_year(year):
    """Gregorian leap year rule."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year, month):
    if month == 2:
        return 29 if is_leap_year(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31
`;

const CAL_TESTS_BASE = `import pytest

from calendar_utils.leap import days_in_month, is_leap_year


def test_ordinary_leap():
    assert is_leap_year(2024)


def test_common_year():
    assert not is_leap_year(2023)


def test_february_days():
    assert days_in_month(2024, 2) == 29


@pytest.mark.xfail(reason="years before 1 are not supported", strict=True)
def test_negative_year():
    assert days_in_month(-1, 13) == 0
`;

const CAL_TESTS_NEW =
  CAL_TESTS_BASE +
  `

def test_century_not_leap():
    assert not is_leap_year(1900)


def test_quadricentennial_leap():
    assert is_leap_year(2000)


def test_february_1900():
    assert days_in_month(1900, 2) == 28
`;

/** The specs, in instance order. */
export const SAMPLE_REPO_SPECS: readonly SampleRepoSpec[] = [
  {
    instance_id: "a2a-bench-samples__textkit-1",
    repo: "a2a-bench-samples/textkit",
    problem_statement:
      'slugify() produces doubled separators for punctuation\n\n`slugify("Hello, World!")` returns `"hello--world-"` instead of `"hello-world"`. Runs of non-alphanumeric characters should become a single separator, and leading/trailing ones should be dropped (`slugify("  spaced out  ")` should be `"spaced-out"`).',
    base: {
      "pytest.ini": PYTEST_INI,
      "README.md": "# textkit\n\nSmall text helpers.\n",
      "textkit/__init__.py": 'from .slug import slugify\n\n__all__ = ["slugify"]\n',
      "textkit/slug.py": SLUG_BASE,
      "tests/test_slug.py": SLUG_TESTS_BASE,
    },
    fix: { "textkit/slug.py": SLUG_FIX },
    tests: { "tests/test_slug.py": SLUG_TESTS_NEW },
    FAIL_TO_PASS: ["tests/test_slug.py::test_punctuation_collapses", "tests/test_slug.py::test_strips_edges"],
    PASS_TO_PASS: ["tests/test_slug.py::test_lowercases", "tests/test_slug.py::test_custom_separator"],
  },
  {
    instance_id: "a2a-bench-samples__chunker-7",
    repo: "a2a-bench-samples/chunker",
    problem_statement:
      "chunked() silently drops the last partial chunk\n\n`chunked([1, 2, 3, 4, 5], 2)` gives `[[1, 2], [3, 4]]`; the docstring promises the last chunk may be shorter, so it should be `[[1, 2], [3, 4], [5]]`. A sequence shorter than the size yields nothing at all.",
    base: {
      "pytest.ini": PYTEST_INI,
      "chunker/__init__.py": "",
      "chunker/core.py": CHUNK_BASE,
      "tests/test_core.py": CHUNK_TESTS_BASE,
    },
    fix: { "chunker/core.py": CHUNK_FIX },
    tests: { "tests/test_core.py": CHUNK_TESTS_NEW },
    FAIL_TO_PASS: ["tests/test_core.py::test_remainder_kept", "tests/test_core.py::test_shorter_than_size"],
    PASS_TO_PASS: [
      "tests/test_core.py::test_even_split",
      "tests/test_core.py::test_rejects_zero",
      "tests/test_core.py::test_platform_specific",
    ],
  },
  {
    instance_id: "a2a-bench-samples__calendar-utils-3",
    repo: "a2a-bench-samples/calendar-utils",
    problem_statement:
      "is_leap_year(1900) returns True\n\nCentury years are leap years only when divisible by 400: 1900 is not a leap year, 2000 is. As a consequence `days_in_month(1900, 2)` returns 29 instead of 28.",
    base: {
      "pytest.ini": PYTEST_INI,
      "calendar_utils/__init__.py": "",
      "calendar_utils/leap.py": CAL_BASE,
      "tests/test_leap.py": CAL_TESTS_BASE,
    },
    fix: { "calendar_utils/leap.py": CAL_FIX },
    tests: { "tests/test_leap.py": CAL_TESTS_NEW },
    FAIL_TO_PASS: ["tests/test_leap.py::test_century_not_leap", "tests/test_leap.py::test_february_1900"],
    PASS_TO_PASS: [
      "tests/test_leap.py::test_ordinary_leap",
      "tests/test_leap.py::test_common_year",
      "tests/test_leap.py::test_february_days",
      "tests/test_leap.py::test_negative_year",
      "tests/test_leap.py::test_quadricentennial_leap",
    ],
  },
];
