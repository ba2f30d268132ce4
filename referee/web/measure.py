"""How wide a text is drawn, to make names and sentences fit their boxes.

Pictures name their font (DejaVu Sans, else Verdana, else any sans-serif) but the
reader's machine draws them, so widths are estimated from DejaVu Sans' own
advance widths (Book and Bold, read from the font files once), a little on the
wide side (Verdana is close to it, most other sans-serif fonts narrower), and a
wide guess for characters outside ASCII. A name too long for its box is cut with
"…"; a long sentence (a game's result) is wrapped over lines.
"""

from __future__ import annotations

import unicodedata

# Advance widths in thousandths of an em of the characters " " to "~", in order.
_BOOK = [int(w) for w in (
    "318 401 460 838 636 950 780 275 390 390 500 838 318 361 318 337 636 636 636 636 636 "
    "636 636 636 636 636 337 337 838 838 838 531 1000 684 686 698 770 632 575 775 752 295 "
    "295 656 557 863 748 787 603 787 695 635 611 732 684 989 685 611 685 390 337 390 838 "
    "500 500 613 635 550 635 615 352 635 634 278 278 579 278 974 634 612 635 635 411 521 "
    "392 634 592 818 592 592 525 636 337 636 838").split()]
_BOLD = [int(w) for w in (
    "348 456 521 838 696 1002 872 306 457 457 523 838 380 415 380 365 696 696 696 696 696 "
    "696 696 696 696 696 400 400 838 838 838 580 1000 774 762 734 830 683 683 821 837 372 "
    "372 775 637 995 837 850 733 850 770 720 682 812 774 1103 771 724 725 457 365 457 838 "
    "500 500 675 716 593 716 678 435 716 712 343 343 665 343 1042 712 687 716 716 493 595 "
    "478 712 652 924 645 652 582 712 365 712 838").split()]
MARGIN = 1.03  # other fonts on the list, rounding, hinting
_OTHER = {"·": 318, "…": 1000, "–": 500, "—": 1000}


def width(text: str, size: float = 14, bold: bool = False) -> float:
    """The estimated width of ``text`` in pixels at ``size``."""
    table = _BOLD if bold else _BOOK
    units = 0
    for ch in text:
        code = ord(ch)
        if 32 <= code < 127:
            units += table[code - 32]
        elif ch in _OTHER:
            units += _OTHER[ch]
        elif unicodedata.combining(ch):
            continue
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            units += 1050
        else:
            units += 800
    return units / 1000 * size * MARGIN


def fit(text, room: float, size: float = 14, bold: bool = False) -> str:
    """``text`` as is if it fits ``room`` pixels, else cut short with "…"."""
    text = str(text)
    if width(text, size, bold) <= room:
        return text
    while text and width(text + "…", size, bold) > room:
        text = text[:-1]
    return text.rstrip() + "…"


def wrap(text, room: float, size: float = 14, bold: bool = False, lines: int = 3) -> list[str]:
    """``text`` in at most ``lines`` lines of at most ``room`` pixels each (the
    last one cut short with "…" if it all does not fit)."""
    out: list[str] = []
    line = ""
    for word in str(text).split():
        candidate = f"{line} {word}" if line else word
        if width(candidate, size, bold) <= room or not line:
            line = candidate
        else:
            out.append(line)
            line = word
    if line:
        out.append(line)
    if len(out) > lines:
        out = out[:lines - 1] + [" ".join(out[lines - 1:])]
    return [fit(x, room, size, bold) for x in out]
