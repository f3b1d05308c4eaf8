"""The README and the pages under docs/, read as a user reads them.

- Every fenced shell block (```bash, ```sh, ```console) holding an `assay ...` or `evaluate ...`
  command is run, command by command, in a temporary directory holding a copy of `examples/`,
  through the installed console script: each command must exit with the code the block gives
  (`# exits 1` after the command, or on a comment line before it; 0 otherwise) and print no
  Python traceback. The block is one test, named by its file and its index among that file's
  command blocks.
- A block that cannot run here (a judge model and its key, a Ray cluster, a browser, a server
  that runs until Ctrl-C) carries `<!-- not run: REASON -->` on the line before its fence, and
  its test is skipped with that reason.
- A block with `<!-- file: NAME -->` on the line before its fence is a file the page shows (an
  eval set, a config): it is written as NAME into the temporary directory before the page's
  commands run.
- Every relative link (and image) leads to a file of the repository, and a link to `#anchor`
  in a Markdown file to one of its headings, by GitHub's rule for heading anchors.
- The README stays a front page: under 250 lines.

In a block, `\\` continues a line, `$ ` prompts are dropped, lines starting with `#` are
comments, and `cd`, `export` and `pip install` lines are skipped (nothing is installed). A path
under `/tmp/` is taken to be under the temporary directory. A path of the repository other than
`examples/` that a command names (a sample under `tests/`) is copied in as well.
"""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from _cli import assay, explain

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = (README, *sorted((ROOT / "docs").glob("*.md")))

SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console"})
SCRIPTS = ("assay", "evaluate")
SKIPPED_COMMANDS = ("cd", "export", "pip install")
COPIED_TOP_LEVELS = ("tests", "src", "bench")
"""Where a command may name a file of the repository besides `examples/`, copied in for it."""

ENV = {"COLUMNS": "100"}

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.+?)\s*-->\s*$")
FILE = re.compile(r"^\s*<!--\s*file:\s*(?P<name>\S+)\s*-->\s*$")
EXITS = re.compile(r"#\s*exits\s+(?P<code>\d+)\b")
HEADING = re.compile(r"^\s{0,3}(?P<level>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]"  # [text], one level of brackets inside
    r"\(\s*<?(?P<target>[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"  # (target "title")
)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
TRACEBACK = "Traceback (most recent call last)"


@dataclass
class Block:
    """One fenced block of a Markdown file."""

    doc: Path
    line: int
    """The line of its opening fence, from 1."""
    language: str
    lines: list[str]
    not_run: str | None = None
    file_name: str | None = None


@dataclass
class Command:
    argv: list[str]
    exits: int
    line: str


@dataclass
class CommandBlock:
    block: Block
    index: int
    commands: list[Command] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.block.doc.relative_to(ROOT)} block {self.index} (line {self.block.line})"


def fenced_blocks(doc: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file, with the comment on the line before each."""
    blocks: list[Block] = []
    lines = doc.read_text(encoding="utf-8").splitlines()
    number = 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        if opening is None:
            number += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        before = lines[number - 1] if number else ""
        not_run, file_name = NOT_RUN.match(before), FILE.match(before)
        body: list[str] = []
        end = number + 1
        while end < len(lines):
            closing = lines[end].strip()
            if closing.startswith(fence[0] * len(fence)) and not closing.strip(fence[0]):
                break
            body.append(lines[end][indent:] if lines[end][:indent].isspace() else lines[end])
            end += 1
        blocks.append(
            Block(
                doc=doc,
                line=number + 1,
                language=opening["info"].lower(),
                lines=body,
                not_run=not_run["reason"] if not_run else None,
                file_name=file_name["name"] if file_name else None,
            )
        )
        number = end + 1
    return blocks


def logical_lines(lines: list[str]) -> list[str]:
    """The block's lines with `\\` continuations joined and `$ ` prompts dropped."""
    joined: list[str] = []
    pending = ""
    for raw in lines:
        line = raw.rstrip()
        if not pending and line.lstrip().startswith("$ "):
            line = line.lstrip()[2:]
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    if pending:
        joined.append(pending)
    return joined


def commands_of(block: Block) -> list[Command]:
    """The `assay` / `evaluate` commands of a shell block, with the exit code each should give.

    Raises:
        ValueError: a line of a block that has commands is neither a command, a comment nor a
            line to skip (the block then needs a `not run` note).
    """
    if block.language not in SHELL_LANGUAGES:
        return []
    lines = [line.strip() for line in logical_lines(block.lines)]
    if not any(line.split(" ", 1)[0] in SCRIPTS for line in lines):
        return []
    commands: list[Command] = []
    exits = 0
    for line in lines:
        if not line:
            continue
        if line.startswith("#"):
            said = EXITS.search(line)
            if said is not None:
                exits = int(said["code"])
            continue
        if line == "cd" or line.startswith(tuple(f"{skip} " for skip in SKIPPED_COMMANDS)):
            continue
        if line.split(" ", 1)[0] not in SCRIPTS:
            raise ValueError(f"a line the test cannot run: {line!r}")
        said = EXITS.search(line)
        code = int(said["code"]) if said else exits
        commands.append(Command(shlex.split(line, comments=True), code, line))
        exits = 0
    return commands


def command_blocks() -> list[CommandBlock]:
    found: list[CommandBlock] = []
    for doc in DOCS:
        index = 0
        for block in fenced_blocks(doc):
            if block.language not in SHELL_LANGUAGES:
                continue
            try:
                commands = commands_of(block)
            except ValueError:
                commands = [Command([], 0, "")]  # the test says what is wrong
            if commands:
                found.append(CommandBlock(block, index, commands))
                index += 1
    return found


COMMAND_BLOCKS = command_blocks()


def _copy_into(tmp_path: Path, argv: list[str]) -> None:
    """Copy the repository files a command names (outside `examples/`) into the temp dir."""
    for arg in argv[1:]:
        for candidate in (arg, arg.split("=", 1)[-1], arg.split(":", 1)[0]):
            relative = Path(candidate)
            if (
                relative.is_absolute()
                or ".." in relative.parts
                or not relative.parts
                or relative.parts[0] not in COPIED_TOP_LEVELS
            ):
                continue
            source, target = ROOT / relative, tmp_path / relative
            if target.exists() or not source.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, target)


def _in_tmp(arg: str, tmp_path: Path) -> str:
    return arg.replace("/tmp/", f"{tmp_path}/")


@pytest.mark.slow
@pytest.mark.parametrize("found", COMMAND_BLOCKS, ids=lambda found: found.name)
def test_the_commands_of_the_docs_run(found: CommandBlock, tmp_path: Path) -> None:
    block = found.block
    if block.not_run is not None:
        pytest.skip(f"not run: {block.not_run}")
    commands = commands_of(block)  # raises, naming the line, if a line cannot be run
    shutil.copytree(
        ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__")
    )
    for shown in fenced_blocks(block.doc):
        if shown.file_name is not None:
            name = Path(shown.file_name)
            assert not name.is_absolute() and ".." not in name.parts, shown.file_name
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text("\n".join(shown.lines) + "\n", encoding="utf-8")
    for command in commands:
        argv = [_in_tmp(arg, tmp_path) for arg in command.argv]
        _copy_into(tmp_path, argv)
        proc = assay(*argv[1:], script=argv[0], cwd=tmp_path, env=ENV)
        where = f"{found.name}: {command.line}"
        assert proc.returncode == command.exits, f"{where}\n{explain(proc)}"
        assert TRACEBACK not in proc.stdout + proc.stderr, f"{where}\n{explain(proc)}"


def test_the_docs_show_commands_to_run() -> None:
    # The parser finds the README's quick start, so an empty parametrization is not a pass.
    readme = [found for found in COMMAND_BLOCKS if found.block.doc == README]
    assert readme, "no assay command found in README.md"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation but `-` and `_` dropped, spaces
    to `-`.

    Example:
        >>> slug("Past one machine: `--executor ray`")
        'past-one-machine---executor-ray'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    """The anchors of a Markdown file's headings, repeated ones numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in prose_lines(doc):
        heading = HEADING.match(line)
        if heading is None:
            continue
        base = slug(heading["text"])
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def prose_lines(doc: Path) -> list[str]:
    """The lines of a Markdown file outside its fenced code blocks."""
    inside = {
        number
        for block in fenced_blocks(doc)
        for number in range(block.line, block.line + len(block.lines) + 2)
    }
    lines = doc.read_text(encoding="utf-8").splitlines()
    return [line for number, line in enumerate(lines, 1) if number not in inside]


def relative_links(doc: Path) -> list[str]:
    """The link and image targets of a Markdown file that are not URLs, outside code."""
    targets: list[str] = []
    for line in prose_lines(doc):
        text = INLINE_CODE.sub("", line)
        targets += [m["target"] for m in LINK.finditer(text) if not SCHEME.match(m["target"])]
    return targets


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(doc: Path) -> None:
    broken: list[str] = []
    for target in relative_links(doc):
        path, _, anchor = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(f"{target}: no such file in the repository")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading #{anchor} in {resolved.relative_to(ROOT)}")
    assert not broken, f"{doc.relative_to(ROOT)}:\n" + "\n".join(broken)


REPOSITORY_DIRS = ("examples", "tests", "src", "bench", "docs", ".ci")
"""A code span naming a path under one of these (`tests/hostile/corpus.py`) names a file of the
repository; other paths in code spans (`reports/_aggregate.json`) are the user's."""


def repository_paths(doc: Path) -> list[str]:
    """The repository paths a Markdown file names in code spans outside code blocks, without a
    `:attribute` or `::test` part."""
    found: list[str] = []
    for line in prose_lines(doc):
        for span in INLINE_CODE.finditer(line):
            text = span.group(0).strip("`").strip()
            if " " in text or "<" in text or "*" in text:
                continue
            path = text.split("::", 1)[0].split(":", 1)[0]
            if path.split("/", 1)[0] in REPOSITORY_DIRS and "/" in path:
                found.append(path)
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_repository_path_named_exists(doc: Path) -> None:
    missing = sorted({path for path in repository_paths(doc) if not (ROOT / path).exists()})
    assert not missing, f"{doc.relative_to(ROOT)} names files the repository lacks: {missing}"


def test_the_docs_have_pages_to_check() -> None:
    assert README.exists()
    assert len(DOCS) > 1, "no pages under docs/"
    assert relative_links(README), "no relative link found in README.md"


def test_the_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250, f"README.md has {len(lines)} lines; move detail to docs/"
