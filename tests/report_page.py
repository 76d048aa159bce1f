"""For the report's tests: a failing scenario (``FAILING``), and an HTML page read back
with the standard library's parser: every tag with its attributes, the ids, and the
fault-coverage matrix as rows of cells."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

FAILING = """\
name: expects-the-wrong-wait
about: A 529 with retry-after, a cut inside the tool call, then the answer; the wait asked for is wrong.
settings: {max_retries: 5}
workspace: {README.md: "# Demo\\n"}
turns:
  - user: Summarize the README
    replies:
      - error: overloaded
        headers: {retry-after: "2"}
      - text: Reading it first.
        tool_use: {name: Read, input: {file_path: README.md}}
        cut: {in_event: 7, how: rst}
      - text: Reading it first.
        tool_use: {name: Read, input: {file_path: README.md}}
      - text: It is a demo.
    expect:
      requests: 4
      tools: [Read]
      sleeps: [2.0, 5.0]
"""
"""A scenario that fails one expectation after a 529, a cut mid tool input and a tool run."""

VOID = {"meta", "br", "hr", "img", "input", "link", "line", "rect", "path", "circle"}


@dataclass
class Tag:
    name: str
    attrs: dict[str, str]
    text: str = ""
    children: list["Tag"] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def all_text(self) -> str:
        return self.text + "".join(child.all_text() for child in self.children)

    def find_all(self, name: str | None = None, cls: str | None = None) -> list["Tag"]:
        found = [self] if (name is None or self.name == name) and (cls is None or cls in self.classes) else []
        for child in self.children:
            found += child.find_all(name, cls)
        return found


class Page(HTMLParser):
    """``Page(text)``: ``root`` (a Tag tree), ``tags`` in order, ``ids``, ``doctype``."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Tag("#document", {})
        self.stack = [self.root]
        self.tags: list[Tag] = []
        self.ids: dict[str, Tag] = {}
        self.doctype = ""
        self.feed(text)
        self.close()

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Tag(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        self.tags.append(node)
        if "id" in node.attrs:
            assert node.attrs["id"] not in self.ids, f"id {node.attrs['id']} twice"
            self.ids[node.attrs["id"]] = node
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        assert self.stack[-1].name == tag, f"</{tag}> closes <{self.stack[-1].name}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(Tag("#text", {}, data))

    def matrix(self) -> dict[str, dict[str, tuple[str, str]]]:
        """The coverage table: ``{kind: {column: (class, text)}}``."""
        [table] = self.root.find_all("table", "matrix")
        rows = table.find_all("tr")
        columns = [th.all_text() for th in rows[0].find_all("th")][1:]
        found = {}
        for row in rows[1:]:
            kind, *cells = row.find_all("td")
            found[kind.all_text()] = {c: (" ".join(sorted(cell.classes)), cell.all_text()) for c, cell in zip(columns, cells)}
        return found
