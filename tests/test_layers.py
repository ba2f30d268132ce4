"""The house's shape: imports run one way, the service names none of what follows
it, and what follows it hears of every append through one hook.

The import walk counts imports written inside functions too (they are how a
cycle hides) and `TYPE_CHECKING` blocks are left out (they never run). A
module's implicit import of its parent package is not an edge: every submodule
has it, and the package's own imports decide whether it closes a loop.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

from referee.appended import Appended, Followers
from referee.queue import InlineQueue
from referee.system import assemble

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("referee", "schemas", "workers")
# What follows the service (reactions and what only they use): the service's
# rooms and what lies below them may import none of these.
REACTIONS = ("referee.mail", "referee.timeouts", "referee.bots", "referee.seats", "referee.system",
             "referee.players", "referee.leagues", "referee.api", "referee.web", "referee.cli",
             "referee.trust", "referee.calendar")  # (the service signs with what it is handed: referee/system.py)
MAX_LINES = 450


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _type_checking_only(tree: ast.Module) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:``."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                for sub in ast.walk(inner):
                    skip.add(id(sub))
    return skip


def import_graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = _type_checking_only(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                # ``from pkg import sub`` imports the submodule; ``from mod import name`` the module
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module
                           for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph.add_edge(name, target)
    return graph


def test_no_import_cycle():
    graph = import_graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == [], f"modules importing each other in a circle: {cycles}"


def test_the_walk_sees_a_cycle_hidden_in_a_function(tmp_path, monkeypatch):
    """The walk itself: an import inside a function that closes a loop is found."""
    pkg = tmp_path / "referee"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from referee import b\n")
    (pkg / "b.py").write_text("def later():\n    from referee.a import x\n")
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    monkeypatch.setattr(f"{__name__}.PACKAGES", ("referee",))
    cycles = [c for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert cycles == [{"referee.a", "referee.b"}]


def test_the_service_and_what_lies_below_it_name_no_reaction():
    graph = import_graph()
    core = [m for m in graph if m == "referee.service" or m.startswith("referee.service.")]
    below = set().union(*(nx.descendants(graph, m) for m in core)) | set(core)
    named = sorted((m, r) for m in below for r in REACTIONS if m == r or m.startswith(r + "."))
    assert named == [], f"the service reaches what follows it: {named}"


def test_the_table_and_the_audit_know_no_bot_module():
    graph = import_graph()
    for module in ("referee.table", "referee.audit"):
        reached = nx.descendants(graph, module)
        assert not any(m == "referee.bots" or m.startswith("referee.bots.") for m in reached), module


def test_errors_and_the_caller_import_nothing_above_them():
    graph = import_graph()
    assert set(graph.successors("referee.errors")) == set()
    assert set(nx.descendants(graph, "referee.caller")) <= {"referee.store.base", "referee.events",
                                                             "referee.store"}


def test_no_file_is_over_the_line_limit():
    long = {str(p.relative_to(ROOT)): n for p in _modules().values()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}, f"files over {MAX_LINES} lines: {long}"


# ---- the hook --------------------------------------------------------------------------

def test_a_reaction_hears_every_append_once_in_order(store):
    service = assemble(store, InlineQueue())
    heard: list[Appended] = []
    service.followers.subscribe("recorder", heard.append)
    game = service.create("king-of-danger", ["Ann", "Bob"], {"seed": "hook-1"})
    gid = game["id"]
    caller = service.caller(gid, game["seats"][service.summary(gid)["to_act"][0]]["token"])
    legal = service.legal(gid, caller)["moves"]
    service.submit(gid, caller, {"move": legal[0]})
    versions = [ev.seq for a in heard for ev in a.events]
    assert versions == list(range(1, service.summary(gid)["version"] + 1))  # every event, once, in order
    assert [a.cause for a in heard][:2] == ["created", "step"]  # the creation, then the deal
    assert "move" in [a.cause for a in heard]
    assert all(a.game_id == gid and a.record.id == gid for a in heard)
    assert heard[-1].at_rest and heard[-1].version == service.summary(gid)["version"]


def test_a_failing_reaction_fails_no_move(store, caplog):
    service = assemble(store, InlineQueue())

    def broken(appended):
        raise RuntimeError("a reaction's bug")

    service.followers.subscribe("broken", broken)
    game = service.create("king-of-danger", ["Ann", "Bob"], {"seed": "hook-2"})
    gid = game["id"]
    caller = service.caller(gid, game["seats"][service.summary(gid)["to_act"][0]]["token"])
    before = service.summary(gid)["version"]
    answer = service.submit(gid, caller, {"move": service.legal(gid, caller)["moves"][0]})
    assert answer["version"] > before
    assert "reaction broken failed" in caplog.text


def test_a_name_follows_once():
    followers = Followers()
    followers.subscribe("notices", lambda a: None)
    with pytest.raises(ValueError):
        followers.subscribe("notices", lambda a: None)
