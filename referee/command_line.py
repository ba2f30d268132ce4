"""The `referee` command's argument parsers: argparse's, whose help is as wide as the
terminal, that width read here and not by shutil.

argparse makes a help formatter for every argument it is given (to check the
argument's metavar), and each formatter asks ``shutil.get_terminal_size()`` for the
width: importing shutil, and with it zlib, bz2 and lzma, was ~2 ms of every start
of the command, ``referee audit``'s included, though only help and usage lines use
the width."""

from __future__ import annotations

import argparse
import os
import sys


def columns() -> int:
    """The terminal's width, as ``shutil.get_terminal_size()`` reads it: ``$COLUMNS``,
    else the terminal standard output is, else 80."""
    try:
        given = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        given = 0
    if given > 0:
        return given
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class Help(argparse.HelpFormatter):
    """argparse's help, two columns narrower than the terminal (as argparse's own)."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position, width or columns() - 2)


class Parser(argparse.ArgumentParser):
    """argparse's parser with ``Help``: its sub-parsers are Parsers too (argparse makes
    them of its parser's class)."""

    def __init__(self, *args, formatter_class=Help, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)
