"""The docs' tables as a reader meets them: a table split by a blank line renders
as a table and a paragraph of pipes, and a row written twice (or a setting given
twice with two defaults) leaves the reader to guess which holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md")])
RULE = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$")


# Tables keyed by their first column: an endpoint, a command, a setting is one row
KEYED = ("call", "command", "setting", "code", "field", "option", "type", "event", "id")


def tables(text: str) -> list[tuple[int, str, list[str]]]:
    """Each table's first line number, its header's first cell and its rows (header
    and rule left out); code blocks skipped. Its rows continue until a line that is
    not one."""
    out, rows, start, fenced = [], None, 0, False
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        if rows is None and line.startswith("|") and n < len(lines) and RULE.match(lines[n]):
            rows, start, head = [], n, cells(line)[0] if cells(line) else ""
        elif rows is not None and line.startswith("|"):
            if not RULE.match(line):
                rows.append(line)
        elif (rows is not None and not line.strip() and n + 1 < len(lines) and lines[n].startswith("|")
              and not RULE.match(lines[n + 1])):
            continue  # a split table (its own test fails): its rows are still its own
        elif rows is not None:
            out.append((start, head, rows))
            rows = None
    if rows is not None:
        out.append((start, head, rows))
    return out


def cells(row: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_no_table_is_split_by_a_blank_line(page):
    lines = page.read_text().split("\n")
    fenced = False
    for n, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or n < 2 or not line.startswith("|") or lines[n - 1].strip():
            continue
        # a row after a blank line must start a table of its own: a header and its rule
        assert n + 1 < len(lines) and RULE.match(lines[n + 1]), \
            f"{page.name}:{n + 1}: a table's rows after a blank line (the table is split in two)"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_no_table_has_a_row_twice(page):
    for start, head, rows in tables(page.read_text()):
        # a keyed table names each key once; any other, each pair of its first two cells
        keys = [tuple(cells(r)[:1 if head in KEYED else 2]) for r in rows if cells(r)]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        assert not twice, f"{page.name}:{start}: rows given twice: {twice}"


def test_each_setting_is_configured_in_one_row():
    """docs/running.md's configuration: one row per environment variable, so it has one default."""
    text = (ROOT / "docs" / "running.md").read_text()
    config = next(rows for _, _, rows in tables(text) if "REFEREE_STORE" in rows[0])
    named = [v for r in config for v in set(re.findall(r"`(REFEREE_[A-Z_]+)`", cells(r)[2]))]
    assert len(config) > 20 and not sorted({v for v in named if named.count(v) > 1})


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_a_section_pointed_to_exists(page):
    """"(README, "Tests")" sends a reader to a section: it must be there."""
    readme = {h.strip() for h in re.findall(r"^#+ (.+)$", (ROOT / "README.md").read_text(), re.M)}
    for named in re.findall(r"(?<![/\w])README(?:\.md)?, \"([^\"]+)\"", page.read_text()):
        assert named in readme, f"{page.name}: README has no section {named!r}"
