"""The site uses only the public, documented names of the packages it depends on (issue 32).

An upgrade of Django, Celery, kombu, redis-py or allauth may change or remove
anything private without a word: a private name (``_foo``) or an ``internal``
module of another package is how a speed-up or a shortcut silently stops
working, or silently loses an email. This scans every Python file of the
checkout (the tests too) and fails on:

- an import of a module of another package whose path has a private part or an
  ``internal`` part (``allauth.core.internal.ratelimit``, ``celery._state``),
  or of a private name from one (``from kombu.transport.redis import _foo``);
- an attribute ``obj._foo`` whose name the project never defines: a private
  attribute of an object of another package, however it was reached;
- in a class, ``self._foo``, ``cls._foo`` or ``super()._foo``, or a method or
  attribute ``_foo`` defined there, where ``_foo`` belongs to a base class of
  another package (``cached_db.SessionStore._get_session_from_db``, or
  ``_cache``, which its ``__init__`` sets): the class's bases are imported, and
  their source read, to know.

Imports under ``if TYPE_CHECKING:`` are not run: names of type stubs
(``django.test.client._MonkeyPatchedWSGIResponse``) are checked by mypy.
``[tool.diamino.private-allow]`` in pyproject.toml names each exception, a name
(``_meta``: documented API that starts with an underscore) or a file, with its reason.

ruff's own rule (``PLC2701``, import-private-name) sees imports only, not
``internal`` modules nor attributes, and also flags the project's tests
importing the project's own private helpers: so this test instead.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import inspect
import textwrap
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
NOT_OURS = {".venv", ".venv313", "node_modules", "data", "build", "stubs", ".git"}
FIRST_PARTY = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()} | {"manage"}


def allowed() -> dict[str, str]:
    """``[tool.diamino.private-allow]``: a name or a file -> why it is allowed."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        table: dict[str, str] = tomllib.load(file)["tool"]["diamino"]["private-allow"]
    return table


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_ours(module: str) -> bool:
    return module.split(".")[0] in FIRST_PARTY


def sources() -> Iterator[Path]:
    for path in sorted(ROOT.rglob("*.py")):
        if not set(path.relative_to(ROOT).parts) & NOT_OURS:
            yield path


@dataclass
class Definitions:
    """The private names the project defines: per file, and as its classes' attributes."""

    by_file: dict[str, set[str]] = field(default_factory=dict)
    of_classes: set[str] = field(default_factory=set)

    def add(self, name: str, tree: ast.AST) -> None:
        mine = self.by_file.setdefault(name, set())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                mine.add(node.name)
            elif isinstance(node, ast.ClassDef):
                mine.add(node.name)
                for inner in node.body:  # its methods and class attributes
                    if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.of_classes.add(inner.name)
                    elif isinstance(inner, ast.AnnAssign) and isinstance(inner.target, ast.Name):
                        self.of_classes.add(inner.target.id)
                    elif isinstance(inner, ast.Assign):
                        targets = [t for t in inner.targets if isinstance(t, ast.Name)]
                        self.of_classes.update(t.id for t in targets)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                mine.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if _is_self(node.value):  # an attribute of the project's own objects
                    self.of_classes.add(node.attr)
            elif isinstance(node, ast.arg):
                mine.add(node.arg)
            elif isinstance(node, ast.alias):
                mine.add(node.asname or node.name.split(".")[0])

    def knows(self, name: str, file: str) -> bool:
        return name in self.by_file.get(file, set()) or name in self.of_classes


def _is_self(node: ast.AST) -> bool:
    """``self``, ``cls`` or ``super()``: the class's own object."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def _type_checking_only(tree: ast.AST) -> set[ast.AST]:
    """The import statements under ``if TYPE_CHECKING:``."""
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                found.update(ast.walk(inner))
    return found


def _imported_names(tree: ast.AST) -> dict[str, tuple[str, str | None]]:
    """Each name a module binds by import: (module, attribute) to find it again."""
    names: dict[str, tuple[str, str | None]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = (alias.name, None)
                else:
                    root = alias.name.split(".")[0]
                    names[root] = (root, None)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = (node.module, alias.name)
    return names


def _of_our_module(expr: ast.expr, imports: dict[str, tuple[str, str | None]]) -> bool:
    """Whether ``expr`` is a module of the project (tests may reach into its private helpers)."""
    if not isinstance(expr, ast.Name) or expr.id not in imports:
        return False
    module, attribute = imports[expr.id]
    if not is_ours(module):
        return False
    if attribute is None:
        return True
    try:
        return importlib.util.find_spec(f"{module}.{attribute}") is not None
    except ModuleNotFoundError:  # ``module`` is no package: ``attribute`` is no module
        return False


def _resolve(expr: ast.expr, imports: dict[str, tuple[str, str | None]]) -> Any:
    """The object a base class expression names, imported; None when unknown."""
    chain: list[str] = []
    while isinstance(expr, ast.Attribute):
        chain.insert(0, expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name) or expr.id not in imports:
        return None
    module, attribute = imports[expr.id]
    try:
        found: Any = importlib.import_module(module)
        if attribute is not None:
            if hasattr(found, attribute):
                found = getattr(found, attribute)
            else:
                found = importlib.import_module(f"{module}.{attribute}")
        for part in chain:
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found


def _their_names(
    cls: ast.ClassDef,
    imports: dict[str, tuple[str, str | None]],
    local: dict[str, ast.ClassDef],
    seen: frozenset[str] = frozenset(),
) -> set[str]:
    """The private names another package's classes give ``cls`` through its bases."""
    names: set[str] = set()
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in local and base.id not in seen:
            names |= _their_names(local[base.id], imports, local, seen | {cls.name})
            continue
        found = _resolve(base, imports)
        if not isinstance(found, type):
            continue
        for klass in found.__mro__:
            if klass is not object and not is_ours(klass.__module__):
                names |= _private_names_of(klass)
    return names


@functools.cache
def _private_names_of(klass: type) -> frozenset[str]:
    """``klass``'s private attributes: in its ``__dict__``, and set on ``self`` by its methods."""
    names = {name for name in vars(klass) if is_private(name)}
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
    except (OSError, TypeError, SyntaxError):  # built in, or no source
        return frozenset(names)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and _is_self(node.value)
            and is_private(node.attr)
        ):
            names.add(node.attr)
    return frozenset(names)


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    name: str  # the private name, or the module's path
    what: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.what}"


def findings(tree: ast.AST, file: str, known: Definitions) -> list[Finding]:
    """What ``tree`` (the file ``file``) uses of other packages' private names or internals."""
    found: list[Finding] = []
    typing_only = _type_checking_only(tree)
    imports = _imported_names(tree)

    def report(node: ast.AST, name: str, what: str) -> None:
        found.append(Finding(file, getattr(node, "lineno", 0), name, what))

    for node in ast.walk(tree):
        if node in typing_only:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if not is_ours(alias.name) and any(is_private(p) or p == "internal" for p in parts):
                    report(node, alias.name, f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if is_ours(node.module):
                continue
            parts = node.module.split(".")
            if any(is_private(p) or p == "internal" for p in parts):
                report(node, node.module, f"from {node.module} import …")
            for alias in node.names:
                if is_private(alias.name) or alias.name == "internal":
                    report(node, alias.name, f"from {node.module} import {alias.name}")
        elif (
            isinstance(node, ast.Attribute)
            and is_private(node.attr)
            and not _is_self(node.value)
            and not known.knows(node.attr, file)
            and not _of_our_module(node.value, imports)
        ):
            what = f"{ast.unparse(node)}: a private attribute the project does not define"
            report(node, node.attr, what)

    local = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    for cls in local.values():
        theirs = _their_names(cls, imports, local)
        if not theirs:
            continue
        for node in ast.walk(cls):
            if isinstance(node, ast.Attribute) and _is_self(node.value) and node.attr in theirs:
                what = f"{ast.unparse(node)}: private to a base class of another package"
                report(node, node.attr, what)
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in theirs:
                what = f"{cls.name}.{node.name} overrides a private method of its base"
                report(node, node.name, what)
    return found


@functools.cache
def parse_all() -> tuple[dict[str, ast.AST], Definitions]:
    """Every source file of the checkout, parsed, and what the project defines."""
    trees: dict[str, ast.AST] = {}
    known = Definitions()
    for path in sources():
        name = str(path.relative_to(ROOT))
        trees[name] = ast.parse(path.read_text(encoding="utf-8"), name)
        known.add(name, trees[name])
    return trees, known


def test_the_project_uses_no_private_name_nor_internal_module_of_another_package() -> None:
    trees, known = parse_all()
    allow = allowed()
    found = [
        str(finding)
        for file, tree in trees.items()
        if file not in allow
        for finding in findings(tree, file, known)
        if finding.name not in allow
    ]
    assert found == [], "\n".join(found)


def test_every_exception_names_its_reason_and_is_still_needed() -> None:
    trees, known = parse_all()
    everything = [f for file, tree in trees.items() for f in findings(tree, file, known)]
    for name, reason in allowed().items():
        assert len(reason) > 20, f"{name}: say why it is allowed"
        assert any(name in (f.file, f.name) for f in everything), f"{name}: no longer needed"


PLANTED = """
from allauth.core.internal.ratelimit import get_ip
from celery._state import _task_stack
import kombu.transport._private
from django.core.cache.backends.redis import RedisCacheClient, _helper
from django.contrib.sessions.backends import cached_db
from django.core.cache.backends.redis import RedisCache


class Store(cached_db.SessionStore):
    def load(self):
        return self._get_session_from_db()


class Counting(RedisCache):
    def count_up(self, key):
        return self._cache.get_client(key, write=True)


class Overriding(RedisCache):
    def _cache(self):
        return None


def through_an_object(cache):
    return cache._servers
"""


def test_it_catches_each_kind_of_use_planted_in_a_snippet() -> None:
    tree = ast.parse(PLANTED)
    known = Definitions()
    known.add("planted.py", tree)
    found = "\n".join(str(f) for f in findings(tree, "planted.py", known))
    assert "planted.py:2: from allauth.core.internal.ratelimit import …" in found
    assert "planted.py:3: from celery._state import …" in found
    assert "planted.py:3: from celery._state import _task_stack" in found
    assert "planted.py:4: import kombu.transport._private" in found
    assert "planted.py:5: from django.core.cache.backends.redis import _helper" in found
    assert "RedisCacheClient" not in found  # a public name of the same module
    assert "planted.py:12: self._get_session_from_db: private to a base class" in found
    assert "planted.py:17: self._cache: private to a base class" in found
    assert "planted.py:21: Overriding._cache overrides a private method" in found
    assert "planted.py:26: cache._servers: a private attribute the project does not define" in found


def test_the_projects_own_private_names_are_its_own_business() -> None:
    tree = ast.parse(
        "from rules.movegen import _generate\n"
        "from django.core.cache.backends.redis import RedisCache\n"
        "class Mine(RedisCache):\n"
        "    def __init__(self):\n"
        "        self._fallback = None\n"
        "    def get(self):\n"
        "        return self._fallback\n"
        "def helper(obj):\n"
        "    return obj._fallback\n"
    )
    known = Definitions()
    known.add("mine.py", tree)
    assert findings(tree, "mine.py", known) == []
