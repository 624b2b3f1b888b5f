#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check kernel reStructuredText files with docutils, without Sphinx.

usage: rst-check.py FILE.rst [FILE.rst ...]

Each file is parsed (with the standard docutils transforms, so broken
internal references are caught too) at report level WARNING.  Sphinx-only
directives used by the kernel documentation (kernel-doc, toctree, ...)
and Sphinx roles (:c:func:, :ref:, :doc:, ...) are registered as no-ops,
so that only genuine reStructuredText problems are reported.  Every
docutils message of level WARNING or above is printed as
"file:line: LEVEL: message".  Exit status: 1 if any file has such a
message, 2 on a usage or I/O error, 0 otherwise.
"""

import io
import sys

try:
    import docutils.core
    import docutils.utils
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles
except ImportError:
    sys.stderr.write("rst-check.py: python3-docutils is required\n")
    sys.exit(2)

WARNING = docutils.utils.Reporter.WARNING_LEVEL
LEVELS = docutils.utils.Reporter.levels


class AnyOption(dict):
    """An option_spec that accepts every option with any value."""

    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return directives.unchanged


class NoOpDirective(Directive):
    """Accept any arguments, options and content; produce nothing."""
    required_arguments = 0
    optional_arguments = 100
    final_argument_whitespace = True
    has_content = True
    option_spec = AnyOption()

    def run(self):
        return []


SPHINX_DIRECTIVES = (
    "kernel-doc", "kernel-abi", "kernel-feat", "kernel-include",
    "kernel-figure", "kernel-image", "kernel-render", "toctree",
    "c:function", "c:type", "c:struct", "c:union", "c:enum", "c:macro",
    "c:member", "c:var", "c:namespace", "c:namespace-push",
    "c:namespace-pop", "only", "highlight", "code-block", "sourcecode",
    "literalinclude", "index", "glossary", "tabularcolumns", "seealso",
    "versionadded", "versionchanged", "deprecated",
)

SPHINX_ROLES = (
    "c:func", "c:type", "c:macro", "c:member", "c:data", "c:var",
    "c:struct", "c:union", "c:enum", "c:enumerator", "c:expr", "c:texpr",
    "ref", "doc", "numref", "term", "abbr", "menuselection", "kbd", "file",
    "samp", "envvar", "option", "command", "manpage", "download",
)


def noop_role(name, rawtext, text, lineno, inliner, options=None,
              content=None):
    return [nodes.literal(rawtext, text)], []


def register():
    for name in SPHINX_DIRECTIVES:
        directives.register_directive(name, NoOpDirective)
    for name in SPHINX_ROLES:
        roles.register_local_role(name, noop_role)


# Every Reporter created while a file is parsed reports to this list.
_problems = []


def _observer(msg):
    if msg["level"] < WARNING:
        return
    source = msg.get("source") or "?"
    line = msg.get("line") or "?"
    text = msg[0].astext() if len(msg) else msg.astext()
    text = text.split("\n")[0]
    entry = "%s:%s: %s: %s" % (source, line, LEVELS[msg["level"]], text)
    if entry not in _problems:
        _problems.append(entry)


_reporter_init = docutils.utils.Reporter.__init__


def _reporter_init_observed(self, *args, **kwargs):
    _reporter_init(self, *args, **kwargs)
    self.attach_observer(_observer)


docutils.utils.Reporter.__init__ = _reporter_init_observed


def check(path):
    """Return the list of problems found in the file at path."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as err:
        sys.stderr.write("rst-check.py: %s: %s\n" % (path, err))
        sys.exit(2)

    del _problems[:]
    settings = {
        "report_level": WARNING,
        "halt_level": docutils.utils.Reporter.SEVERE_LEVEL + 1,
        "warning_stream": io.StringIO(),    # reported by _observer
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "tab_width": 8,
    }
    docutils.core.publish_doctree(text, source_path=path,
                                  settings_overrides=settings)
    return list(_problems)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: rst-check.py FILE.rst [FILE.rst ...]\n")
        return 2
    register()
    failed = False
    for path in argv[1:]:
        problems = check(path)
        for problem in problems:
            print(problem)
        if problems:
            failed = True
        else:
            print("%s: OK" % path)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
