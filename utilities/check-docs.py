#! /usr/bin/python3
# Copyright (c) 2026 ovs-percpu authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Checks that the documentation names the tree as it is.

Two checks, both stated in Documentation/contributing.md ("Paths in the
documentation"):

1. Every file of lib/, datapath/, vswitchd/ and utilities/ is named in
   a table of Documentation/architecture.md, and every file a table
   names exists.  The first cell of a table row names files, separated
   by commas: a name with a slash is a path from the top of the tree; a
   name without one is in the folder of the name before it in the same
   cell or, first in its cell, in the folder the table's header cell
   names ("file (datapath/)"); ".h" alone is the name before it with
   .h for its suffix; a name ending in "/" is a folder and names every
   file under it.  FILE.h is named with FILE.c ("Each FILE.c comes with
   its FILE.h").

2. Every path quoted in Documentation/*.md and README.md that starts
   with one of our top-level folders exists, unless it is marked as a
   path of OVS or Linux: "OVS", "OVS's", "OVS 3.1's", "Linux's" or
   "the kernel's", optionally followed by "own", just before it, or "in
   the OVS tree" or "of the OVS tree" just after it.  A path may be a
   glob ("lib/tunnels/vport-*.c", "{a,b}"), and a word in capitals in it
   is a placeholder ("tests/test-MODULE.c"): either must match a file.
   A path that does not exist may be one the build or the tests write;
   it passes when .gitignore names it.

The files of the tree are those git knows or would add (tracked, or
untracked and not ignored); outside a git checkout the check says so and
passes.  Exits 1 and says what is wrong, or 0.

Usage: check-docs.py [TOP]
"""

import glob
import os
import re
import subprocess
import sys

# The folders whose files architecture.md's tables must name.
MAPPED = ("lib", "datapath", "vswitchd", "utilities")

# A quoted path starts with one of these folders of ours.
TOP_DIRS = ("lib", "datapath", "vswitchd", "utilities", "tests",
            "Documentation", "m4", ".ci")

PATH_RE = re.compile(r"(?<![\w./~$-])((?:%s)/[\w.*{},/-]*)"
                     % "|".join(re.escape(d) for d in TOP_DIRS))
MARK_BEFORE_RE = re.compile(r"(?:\bOVS(?: [\d.]+)?(?:'s)?|\bLinux's|"
                            r"\bthe kernel's)(?: own)?[ (`]*$")
MARK_AFTER_RE = re.compile(r"^[`)]*,? (?:in|of) the OVS tree")
PLACEHOLDER_RE = re.compile(r"(?<![A-Za-z])[A-Z][A-Z0-9_]*(?![A-Za-z])")


def tree_files(top):
    """The files of the tree, or None where TOP is not the top of a git
    checkout (a copy of the tree inside another one, as the sanitizer
    builds' _build-* copies are, which the top's own check covers)."""
    try:
        toplevel = subprocess.run(
            ["git", "-C", top, "rev-parse", "--show-toplevel"],
            check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            universal_newlines=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    if os.path.realpath(toplevel) != os.path.realpath(top):
        return None
    try:
        out = subprocess.run(
            ["git", "-C", top, "ls-files", "--cached", "--others",
             "--exclude-standard", "--"] + list(MAPPED),
            check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            universal_newlines=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return set(f for f in out.splitlines()
               if os.path.isfile(os.path.join(top, f)))


def is_ignored(top, path):
    """Whether .gitignore names PATH (a file the build or tests write)."""
    r = subprocess.run(["git", "-C", top, "check-ignore", "-q",
                        "--no-index", path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0


def cells(line):
    """The cells of a Markdown table row."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_names(text):
    """(line number, path) for every file or folder the tables name."""
    names = []
    header_dir = ""
    file_table = False
    prev_row = False
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith("|"):
            prev_row = False
            continue
        first = cells(line)[0]
        if not prev_row:
            # The header row: only a table of files counts, and "file
            # (datapath/)" names the folder of its names.
            file_table = first.startswith("file")
            m = re.search(r"\(([\w/.-]+/)\)", first)
            header_dir = m.group(1) if m else ""
            prev_row = True
            continue
        prev_row = True
        if not file_table or re.fullmatch(r":?-+:?", first):
            continue
        folder = header_dir
        stem = None
        for name in first.split(","):
            name = name.strip().strip("`").strip()
            if not name:
                continue
            if name == ".h" and stem:
                path = stem + ".h"
            elif name.split("/")[0] in TOP_DIRS:
                path = name
            else:
                path = folder + name
            if not path.endswith("/"):
                folder = os.path.dirname(path) + "/"
                stem = os.path.splitext(path)[0]
            names.append((n, path))
    return names


def check_tables(top, files):
    """Check 1.  Returns the list of complaints."""
    doc = "Documentation/architecture.md"
    with open(os.path.join(top, doc), encoding="utf-8") as f:
        names = table_names(f.read())
    errors = []
    named = set()
    for n, path in names:
        if path.endswith("/"):
            under = [f for f in files if f.startswith(path)]
            if not under:
                errors.append("%s:%d: %s: no such folder, or empty"
                              % (doc, n, path))
            named.update(under)
        elif not os.path.exists(os.path.join(top, path)):
            errors.append("%s:%d: %s: no such file" % (doc, n, path))
        else:
            named.add(path)
            if path.endswith(".c"):
                named.add(path[:-2] + ".h")
    for f in sorted(files - named):
        errors.append("%s: %s is in no table (\"Where each concern lives\" "
                      "or the kernel datapath's)" % (doc, f))
    return errors


def expand_braces(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(path[:m.start()] + alt + path[m.end():]))
    return out


def path_exists(top, path):
    for p in expand_braces(path):
        candidates = [p]
        generic = PLACEHOLDER_RE.sub("*", p)
        if generic != p:
            candidates.append(generic)
        found = False
        for c in candidates:
            if glob.glob(os.path.join(top, c)):
                found = True
                break
        if not found:
            sample = PLACEHOLDER_RE.sub("x", p).replace("*", "x")
            if not is_ignored(top, sample):
                return False
    return True


def check_paths(top):
    """Check 2.  Returns the list of complaints."""
    docs = sorted(glob.glob(os.path.join(top, "Documentation", "*.md")))
    docs.append(os.path.join(top, "README.md"))
    errors = []
    for doc in docs:
        rel = os.path.relpath(doc, top)
        with open(doc, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for n, line in enumerate(lines, 1):
            for m in PATH_RE.finditer(line):
                path = m.group(1).rstrip(".,:;")
                before = line[:m.start()]
                after = line[m.end():]
                if n > 1 and not before.strip(" `("):
                    # The marker may end the line before.
                    before = lines[n - 2] + " " + before.lstrip()
                if after.strip() in ("", "`") and n < len(lines):
                    after = after + " " + lines[n].lstrip()
                if MARK_BEFORE_RE.search(before) \
                   or MARK_AFTER_RE.search(after):
                    continue
                if not path_exists(top, path):
                    errors.append("%s:%d: %s: no such file (a path of OVS "
                                  "or Linux needs its marker, "
                                  "contributing.md)" % (rel, n, path))
    return errors


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = tree_files(top)
    if files is None:
        print("check-docs: not the top of a git checkout, skipped")
        return 0
    errors = check_tables(top, files) + check_paths(top)
    for e in errors:
        sys.stderr.write("check-docs: %s\n" % e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
