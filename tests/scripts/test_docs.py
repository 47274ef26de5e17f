"""The documentation stands alone: every relative link in README.md,
CONTRIBUTING.md and docs/ reaches an existing file (and heading, where it
names one), README.md stays a short entry point, and no tracked source or
document points at files outside the repository or at issue numbers.

These tests need no build: they read the repository's own files.
"""
import os
import pathlib
import re
import subprocess
import unicodedata

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
README_MAX_LINES = 200

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`+[^`]*`+")
# [text](target) and ![alt](target); the target ends at whitespace or ')'.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def markdown_documents():
    docs = [REPO / "README.md", REPO / "CONTRIBUTING.md"]
    docs += sorted((REPO / "docs").rglob("*.md"))
    return [path for path in docs if path.is_file()]


def prose_lines(path: pathlib.Path):
    """(line number, text) of the lines outside fenced code blocks."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, line


def heading_slug(text: str) -> str:
    """The anchor a Markdown renderer (GitHub's rules) gives a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its text
    text = text.strip().lower()
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char in " -_" or category[0] in "LN":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


def anchors_of(path: pathlib.Path):
    anchors, seen = set(), {}
    for _, line in prose_lines(path):
        match = HEADING.match(line)
        if not match:
            continue
        slug = heading_slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def links_of(path: pathlib.Path):
    for number, line in prose_lines(path):
        for match in LINK.finditer(INLINE_CODE.sub("", line)):
            yield number, match.group(1)


def test_the_link_checker_finds_links_and_headings(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# The PIOsim check, and `--force`\n\n## MPI-3.1 calls\n\n"
                    "See [a](other.md#x), ![b](img/p.png) and `[c](not-a-link.md)`.\n"
                    "```\n[d](inside-code.md)\n```\n", encoding="utf-8")
    assert anchors_of(page) == {"the-piosim-check-and---force", "mpi-31-calls"}
    assert [target for _, target in links_of(page)] == ["other.md#x", "img/p.png"]


@pytest.mark.parametrize("document", markdown_documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(document):
    problems = []
    for number, target in links_of(document):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        destination = (document.parent / file_part).resolve() if file_part else document
        where = f"{document.relative_to(REPO)}:{number}: [{target}]"
        if not destination.exists():
            problems.append(f"{where}: {file_part} does not exist")
        elif REPO not in destination.parents and destination != REPO:
            problems.append(f"{where}: leads outside the repository")
        elif anchor and destination.suffix == ".md" and anchor not in anchors_of(destination):
            problems.append(f"{where}: {destination.relative_to(REPO)} has no heading #{anchor}")
    assert not problems, "\n".join(problems)


def test_the_documents_have_links_to_check():
    targets = [target for document in markdown_documents() for _, target in links_of(document)]
    # README alone links every page of docs/user, docs/format and docs/dev.
    assert len(targets) > 50, targets


def test_readme_is_a_short_entry_point():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines, more than {README_MAX_LINES}: move details into docs/")


# What must not be referred to: files outside the repository (the format notes
# and specification of the development workplace, its shared folder) and issue
# numbers, which mean nothing to a reader of the repository.
FORBIDDEN = [
    (re.compile(r"NOTES\.md|\bformat notes\b", re.IGNORECASE), "a notes file outside the repository"),
    (re.compile(r"\.\./shared|/work/shared"), "a folder outside the repository"),
    (re.compile(r"\bissue\s*#?\d+", re.IGNORECASE), "an issue number"),
    (re.compile(r"\bthe seed\b|\bseed's\b|\bseed[- ](?:\d|sections?|appendix)|\bseed-named\b", re.IGNORECASE),
     "the specification outside the repository"),
    (re.compile(r"\bworkplace\b", re.IGNORECASE), "the development workplace"),
    (re.compile(r"TRACE-FORMAT\.md|docs/performance\.md"), "a document that moved into docs/"),
]
SPLIT_ISSUE_NUMBER = re.compile(r"\bissue[ \t]*\n[ \t]*(?://|#|\*|--|!)?[ \t]*#?\d+",
                                re.IGNORECASE)
# The only files that may name the folder of the optional fixtures: the
# helpers through which the tests look for it.
FIXTURE_LOOKUP_HELPERS = {"tests/conftest.py", "tests/reader/CMakeLists.txt"}
TEXT_SUFFIXES = {".md", ".py", ".c", ".h", ".cpp", ".hpp", ".txt", ".cmake", ".in", ".sh",
                 ".1", ".3", ".js", ".css", ".html", ".f90", ".F90", ".ini", ".map", ".cfg"}
SKIPPED_FOLDERS = ("tests/fuzz/corpus/", "tests/fuzz/dict/")


def tracked_files():
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                                check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        # A tree without git (an unpacked archive): every file but build output.
        listed = []
        for folder, subfolders, files in os.walk(REPO):
            subfolders[:] = [d for d in subfolders
                             if not d.startswith((".git", "build", "demo-output"))]
            listed += [str((pathlib.Path(folder) / f).relative_to(REPO)) for f in files]
    return sorted(listed)


def is_text_source(relative: str) -> bool:
    path = REPO / relative
    if relative.startswith(SKIPPED_FOLDERS) or not path.is_file():
        return False
    if path.suffix in TEXT_SUFFIXES or path.name == "CMakeLists.txt":
        return True
    if relative.startswith("scripts/"):
        return True
    # Scripts without a suffix elsewhere (bench/, tests/): known by their #!.
    with open(path, "rb") as source:
        return source.read(2) == b"#!"


def test_no_reference_outside_the_repository_or_to_issue_numbers():
    myself = str(pathlib.Path(__file__).resolve().relative_to(REPO))
    files = [f for f in tracked_files() if is_text_source(f) and f != myself]
    assert len(files) > 100, f"found only {len(files)} source files under {REPO}"
    problems = []
    for relative in files:
        text = (REPO / relative).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for pattern, what in FORBIDDEN:
                match = pattern.search(line)
                if not match:
                    continue
                if relative in FIXTURE_LOOKUP_HELPERS and "shared" in match.group(0):
                    continue
                problems.append(f"{relative}:{number}: {what}: {line.strip()[:120]}")
        # An issue number a comment breaks onto its next line ("(issue" / "// 16)").
        for match in SPLIT_ISSUE_NUMBER.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            problems.append(f"{relative}:{line}: an issue number: {match.group(0).strip()[:120]}")
    assert not problems, f"{len(problems)} references:\n" + "\n".join(problems)


DOC_PATH = re.compile(r"\bdocs/(?:[\w.-]+/)*[\w.-]+\.md\b")


def test_every_docs_page_named_in_the_sources_exists():
    """A comment or message that sends its reader to docs/ names a page that is there."""
    myself = str(pathlib.Path(__file__).resolve().relative_to(REPO))
    problems = []
    for relative in tracked_files():
        if relative == myself or not is_text_source(relative):
            continue
        text = (REPO / relative).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for match in DOC_PATH.finditer(line):
                if not (REPO / match.group(0)).is_file():
                    problems.append(f"{relative}:{number}: {match.group(0)} does not exist")
    assert not problems, "\n".join(problems)


def test_the_packages_for_an_administrator_are_those_install_deps_installs():
    """docs/user/install.md lists what a user without root asks for: the
    same packages, in the same order, as scripts/install-deps --list."""
    listed = subprocess.run(["bash", str(REPO / "scripts" / "install-deps"), "--list"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert "libopenmpi-dev" in listed and "chromium" in listed
    text = (REPO / "docs" / "user" / "install.md").read_text(encoding="utf-8")
    section = text.split("## Without root", 1)[1]
    block = section.split("```", 2)[1]
    assert block.split() == listed
