"""The example trainer runs end to end, writes a policy that loads as a bot, a manifest
and a checkpoint, and goes on from the checkpoint."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from bots import make_agent
from bots.policy import PolicyAgent

TRAIN = Path(__file__).resolve().parents[2] / "examples" / "learning" / "train.py"


def _trainer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hexhaven_example_train", TRAIN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_short_run_writes_a_policy_a_manifest_and_resumes(tmp_path: Path) -> None:
    train = _trainer()
    out = tmp_path / "p.npz"
    args = ["--updates", "2", "--envs", "3", "--steps", "4", "--hidden", "8"]
    args += ["--eval-games", "2", "--out", str(out), "--seed", "3"]
    assert train.main(args) == 0
    manifest = json.loads(Path(f"{out}.json").read_text())
    assert manifest["trained"]["updates"] == 2
    assert manifest["trained"]["steps"] == 2 * 3 * 4
    assert manifest["evaluation"]["games"] == 2
    agent = make_agent("policy", 0, {"weights": str(out)})
    assert isinstance(agent, PolicyAgent) and agent.name == "a2c-2p-seed3"
    assert train.main([*args, "--resume"]) == 0
    again = json.loads(Path(f"{out}.json").read_text())
    assert again["trained"]["updates"] == 4
