"""The layering rule of docs/architecture.md, checked: imports point one way (the
import-linter contracts in pyproject.toml), and every per-seat game message is assembled in
the protocol layer."""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "boards", "storage", "server", "clients", "bots", "tournament", "app")
"""Every package but the protocol, whose table is the one place per-seat messages are made."""

TABLE_MESSAGES = {"Prompt", "Events", "GameView", "History", "HistoryBatch", "GameOver"}
"""Messages that carry a game as one recipient may see it."""
SEAT_FORMS = {"view_from_engine", "event_from_engine", "for_seat"}
"""Functions that turn the engine's full state or events into one recipient's form."""


def test_imports_point_one_way() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    assert code == 0, out.getvalue()


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _per_seat_assembly(path: Path) -> list[str]:
    """Where a module builds a table message or a recipient's form itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called_name(node)
        if name in TABLE_MESSAGES or name in SEAT_FORMS:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}(...)")
        elif name == "view" and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id == "engine":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: engine.view(...)")
    return found


@pytest.mark.parametrize("package", [p for p in PACKAGES if p != "engine"])
def test_per_seat_messages_are_made_only_in_the_protocol_layer(package: str) -> None:
    found = [
        where
        for path in sorted((ROOT / package).rglob("*.py"))
        for where in _per_seat_assembly(path)
    ]
    assert not found, "use protocol.table instead:\n" + "\n".join(found)


def test_the_assembly_check_sees_a_message_built_by_hand(tmp_path: Path) -> None:
    module = tmp_path / "room.py"
    module.write_text(
        "from protocol import messages as m\n"
        "import engine\n"
        "def tell(state, seat):\n"
        "    return m.GameView(game='g', view=view_from_engine(engine.view(state, seat)))\n",
        encoding="utf-8",
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(f"{__name__}.ROOT", tmp_path)
        found = _per_seat_assembly(module)
    assert [f.split(": ", 1)[1] for f in found] == [
        "GameView(...)",
        "view_from_engine(...)",
        "engine.view(...)",
    ]
