"""Findings compared between a patch and its parent: as multisets, without
the line numbers that moved code changes."""

import collections
import os
import re

from .env import KSRC


def new_findings(before, after, key=lambda f: f):
    """The findings of after beyond those of before, counted as multisets
    by key: a second finding equal to one the parent has is new."""
    left = collections.Counter(key(f) for f in before)
    new = []
    for f in after:
        if left[key(f)] > 0:
            left[key(f)] -= 1
        else:
            new.append(f)
    return new


def compiler_warnings(out, objdir, files):
    """The compiler's and sparse's warnings and errors in out that are
    located in files, "path: warning: message" with a tree-relative path
    and without the line number, so that a warning that only moved is not
    new.  A header's warning repeats for every object that includes it:
    kept once per line; two at different lines are two (new_findings()
    counts them)."""
    found, seen, srcs = [], set(), set(files)
    for l in out.splitlines():
        m = re.match(r"^([^:\s]+):(\d+):(?:\d+:)? (warning|error): (.*)$", l)
        if not m:
            continue
        # gcc (through ccache) prints paths relative to the object
        # directory, sparse absolute ones: make both tree-relative.
        path = os.path.relpath(os.path.normpath(os.path.join(objdir, m.group(1))), KSRC)
        w = "%s: %s: %s" % (path, m.group(3), m.group(4))
        if path in srcs and (path, m.group(2), w) not in seen:
            seen.add((path, m.group(2), w))
            found.append(w)
    return found


def cocci_key(report):
    """A coccinelle report without its line numbers, so that moved code
    matches: both the position ("f.c:563:9-10:") and the lines the message
    names ("bound on line 561")."""
    report = re.sub(r":\d+(:\d+)?(-\d+)?:", ":", report)
    return re.sub(r"\b(line|lines) \d+(-\d+)?", r"\1 N", report)
