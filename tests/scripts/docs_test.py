#!/usr/bin/python3
"""The repository documents itself: no file cites a path outside it, every relative link in
the README and docs/ resolves inside it (a link to a section, to a heading of its document),
the README stays short, and every game folder in engine/ has its rules in docs/rules/.

    /usr/bin/python3 tests/scripts/docs_test.py SOURCE_DIR
"""
import functools
import os
import re
import sys

root = os.path.abspath(sys.argv[1])
failures = []
# Written so that this file does not match itself.
outside = re.compile(r"shared/rule[s]|DESIGN[.]md|shared/seed[s]")
skip_dirs = {".git", "node_modules"}

for folder, dirs, files in os.walk(root):
    dirs[:] = [d for d in dirs if d not in skip_dirs and not d.startswith("build")]
    for name in files:
        path = os.path.join(folder, name)
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue  # binary files (weights)
        for number, line in enumerate(text.splitlines(), 1):
            if outside.search(line):
                failures.append(f"{os.path.relpath(path, root)}:{number} cites a path outside the repository")

@functools.cache  # each document is read once, however many links name it
def anchors(path):
    """The section anchors a Markdown file's headings get (GitHub's rule: lower case, no
    punctuation but '-' and '_', spaces to '-', repeated headings numbered -1, -2, ...)."""
    seen = {}
    found = set()
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        heading = re.match(r"#{1,6} (.*)", line)
        if in_code or not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


link = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)")
docs = [os.path.join(root, "README.md")]
for folder, _, files in os.walk(os.path.join(root, "docs")):
    docs += [os.path.join(folder, name) for name in files if name.endswith(".md")]
for doc in docs:
    for target, anchor in link.findall(open(doc, encoding="utf-8").read()):
        if re.match(r"[a-z]+:", target):
            continue  # an outside web address
        resolved = os.path.normpath(os.path.join(os.path.dirname(doc), target)) if target else doc
        if not resolved.startswith(root) or not os.path.exists(resolved):
            failures.append(f"{os.path.relpath(doc, root)} links to {target}, which is not in the repository")
        elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            failures.append(f"{os.path.relpath(doc, root)} links to {target}#{anchor}, a section "
                            f"{os.path.relpath(resolved, root)} does not have")

size = os.path.getsize(os.path.join(root, "README.md"))
if size > 10 * 1024:
    failures.append(f"README.md is {size} bytes; keep it under 10 KiB and move detail to docs/")

games = sorted(d for d in os.listdir(os.path.join(root, "engine"))
               if os.path.isdir(os.path.join(root, "engine", d)) and d != "core")
for game in games:
    if not os.path.exists(os.path.join(root, "docs", "rules", game + ".md")):
        failures.append(f"engine/{game}/ has no docs/rules/{game}.md")

for failure in failures:
    print("FAIL", failure)
print(f"{len(docs)} documents, {len(games)} games checked; {len(failures)} failures")
sys.exit(1 if failures else 0)
