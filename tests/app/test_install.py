"""The install: when setup.py compiles the engine (a regular install where a C compiler
works; never an editable one), that a missing compiler leaves a pure-Python install, and the
notice a regular install without the compiled engine prints when it runs; README's two
commands show pip's progress and test as CI does."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import engine.rules
from app.engine_build import NOTICE, interpreted_notice, is_compiled, is_regular_install

ROOT = Path(__file__).resolve().parents[2]
FAKE_CC = """#!/bin/sh
# A stand-in C compiler: writes the file after -o; fails on a source named bad*.
for arg in "$@"; do case "$arg" in *bad*) exit 1;; esac; done
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then : > "$2"; fi
  shift
done
"""


def load_setup() -> Any:
    """setup.py as a module (its ``setup()`` runs only as a script)."""
    spec = importlib.util.spec_from_file_location("hexhaven_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def setup_py() -> Any:
    return load_setup()


@pytest.fixture
def fake_cc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cc = tmp_path / "fake-cc"
    cc.write_text(FAKE_CC)
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    monkeypatch.delenv("LDSHARED", raising=False)
    return cc


def never() -> str | None:
    raise AssertionError("the compiler was probed for a build that does not compile")


# --- setup.py's decisions -------------------------------------------------------------------


def test_hexhaven_compile_reads_one_zero_or_nothing(setup_py: Any) -> None:
    assert setup_py.compile_mode({}) == "auto"
    assert setup_py.compile_mode({"HEXHAVEN_COMPILE": ""}) == "auto"
    assert setup_py.compile_mode({"HEXHAVEN_COMPILE": "1"}) == "on"
    assert setup_py.compile_mode({"HEXHAVEN_COMPILE": "0"}) == "off"
    with pytest.raises(setup_py.CompileRefused, match="not 'yes'"):
        setup_py.compile_mode({"HEXHAVEN_COMPILE": "yes"})


WHEEL = ["setup.py", "bdist_wheel", "--dist-dir", "/tmp/out"]
EDITABLE = ["setup.py", "editable_wheel", "--dist-dir", "/tmp/out"]


def test_a_wheel_compiles_where_the_compiler_works(setup_py: Any) -> None:
    assert setup_py.should_compile("auto", WHEEL, lambda: None)
    assert setup_py.should_compile("on", WHEEL, lambda: None)
    assert setup_py.should_compile("auto", ["setup.py", "build_ext", "--inplace"], lambda: None)


def test_without_a_compiler_a_wheel_is_pure_python_and_says_why(
    setup_py: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not setup_py.should_compile("auto", WHEEL, lambda: "gcc: not found")
    assert capsys.readouterr().err == (
        "hexhaven: the engine stays pure Python: no C compiler works here (gcc: not found)\n"
    )


def test_a_forced_compile_without_a_compiler_fails(setup_py: Any) -> None:
    with pytest.raises(setup_py.CompileRefused, match=r"HEXHAVEN_COMPILE=1.*gcc: not found"):
        setup_py.should_compile("on", WHEEL, lambda: "gcc: not found")


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_editable_installs_and_metadata_never_compile(setup_py: Any, mode: str) -> None:
    for argv in (EDITABLE, ["setup.py", "develop"], ["setup.py", "egg_info"], ["setup.py"]):
        assert not setup_py.should_compile(mode, argv, never)
    assert not setup_py.should_compile("off", WHEEL, never)


def test_a_forced_compile_of_an_editable_install_fails(setup_py: Any) -> None:
    with pytest.raises(setup_py.CompileRefused, match="regular installs only"):
        setup_py.should_compile("on", EDITABLE, never)
    assert setup_py.ext_modules("auto", EDITABLE) == []


def test_the_probe_finds_a_compiler_that_fails(
    setup_py: Any, fake_cc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert setup_py.compiler_problem() is None  # the stand-in compiler "works"
    monkeypatch.setenv("CC", "/bin/false")
    problem = setup_py.compiler_problem()
    assert problem is not None and "exit" in problem


def build_two(setup_py: Any, tmp_path: Path, required: bool) -> tuple[Any, list[Path]]:
    """BuildExtOrPure over a module that builds and one that does not."""
    tmp_path.mkdir(exist_ok=True)
    sources = []
    for name in ("good", "bad"):
        source = tmp_path / f"{name}.c"
        source.write_text("int x;\n")
        sources.append(setup_py.Extension(name, [str(source)]))
    dist = setup_py.Distribution({"name": "two", "ext_modules": sources})
    command = setup_py.BuildExtOrPure(dist)
    command.build_temp = str(tmp_path / "temp")
    command.build_lib = str(tmp_path / "lib")
    command.required = required
    command.ensure_finalized()
    outputs = [Path(command.get_ext_fullpath(name)) for name in ("good", "bad")]
    return command, outputs


def test_a_failed_compile_leaves_no_compiled_module_behind(
    setup_py: Any, fake_cc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command, outputs = build_two(setup_py, tmp_path, required=False)
    command.run()
    assert not any(p.exists() for p in outputs)
    assert "hexhaven: the engine stays pure Python: compiling it failed" in capsys.readouterr().err
    command, outputs = build_two(setup_py, tmp_path / "forced", required=True)
    with pytest.raises(Exception, match="exit"):
        command.run()
    assert outputs[0].exists()  # the good one was built before the bad one failed


# --- a real build, without a compiler -----------------------------------------------------

Completed = subprocess.CompletedProcess[str]
PIP_INSTALL = [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps"]


def pip_install(
    source: Path, target: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``pip install --no-build-isolation --no-deps -t target source`` (as CI builds)."""
    return subprocess.run(
        [*PIP_INSTALL, "-t", str(target), str(source)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


PACKAGES = (
    "engine",
    "boards",
    "protocol",
    "storage",
    "server",
    "clients",
    "bots",
    "tournament",
    "app",
)


def project_copy(tmp_path: Path) -> Path:
    """The project's sources in ``tmp_path`` (pip builds in the source tree)."""
    copy = tmp_path / "src"
    copy.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, copy / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "node_modules")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=ignore)
    return copy


def test_without_a_compiler_the_install_is_pure_python_and_says_so_when_run(
    tmp_path: Path,
) -> None:
    source = project_copy(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "HEXHAVEN_COMPILE"}
    env |= {"CC": "/bin/false", "PYTHONPATH": ""}
    forced = pip_install(source, tmp_path / "forced", env | {"HEXHAVEN_COMPILE": "1"})
    assert forced.returncode != 0
    assert "HEXHAVEN_COMPILE=1, but no extension module builds here" in forced.stderr
    site = tmp_path / "site"
    done = pip_install(source, site, env)
    assert done.returncode == 0, done.stderr
    assert (site / "engine" / "rules.py").exists()
    assert not list(site.rglob("*.so"))
    run = subprocess.run(
        [sys.executable, "-P", "-c", "from app.engine_build import warn_if_interpreted as w; w()"],
        env=env | {"PYTHONPATH": str(site)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (run.returncode, run.stderr) == (0, NOTICE + "\n")


# --- the notice -----------------------------------------------------------------------------


def fake_install(root: Path, direct_url: dict[str, Any] | None, record: bool = True) -> Path:
    """A Hexhaven distribution in ``root`` holding engine/rules.py, as an installer leaves
    one; returns the module's file."""
    info = root / "hexhaven-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hexhaven\nVersion: 0.1.0\n")
    if record:
        (info / "RECORD").write_text("engine/rules.py,,\nhexhaven-0.1.0.dist-info/RECORD,,\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    module = root / "engine" / "rules.py"
    module.parent.mkdir()
    module.write_text("")
    return module


def module_at(file: Path) -> ModuleType:
    module = ModuleType("engine.rules")
    module.__file__ = str(file)
    return module


REGULAR = {"url": "file:///src/hexhaven", "dir_info": {}}
EDITABLE_URL = {"url": "file:///src/hexhaven", "dir_info": {"editable": True}}


@pytest.mark.parametrize(
    ("direct_url", "regular"),
    [
        (REGULAR, True),
        (None, True),
        ({"url": "file:///src/hexhaven", "dir_info": {"editable": False}}, True),
        (EDITABLE_URL, False),
    ],
    ids=["from-a-clone", "from-an-index", "editable-false", "editable"],
)
def test_only_a_regular_install_is_told(
    tmp_path: Path, direct_url: dict[str, Any] | None, regular: bool
) -> None:
    file = fake_install(tmp_path, direct_url)
    assert is_regular_install(str(file), path=[str(tmp_path)]) is regular
    notice = interpreted_notice(module_at(file), path=[str(tmp_path)])
    assert notice == (NOTICE if regular else None)


def test_sources_and_compiled_modules_are_not_told(tmp_path: Path) -> None:
    unrecorded = fake_install(tmp_path / "egg", REGULAR, record=False)  # a build's egg-info
    assert not is_regular_install(str(unrecorded), path=[str(tmp_path / "egg")])
    fake_install(tmp_path / "site", REGULAR)
    elsewhere = tmp_path / "clone" / "engine" / "rules.py"  # sources run where they are
    assert not is_regular_install(str(elsewhere), path=[str(tmp_path / "site")])
    compiled = tmp_path / "site" / "engine" / "rules.cpython-311-x86_64-linux-gnu.so"
    assert is_compiled(module_at(compiled))
    assert interpreted_notice(module_at(compiled), path=[str(tmp_path / "site")]) is None


def test_the_tests_own_engine_is_not_told() -> None:
    """The suite runs on an editable install or the sources: no notice."""
    assert interpreted_notice(engine.rules) is None


def test_the_notice_is_one_line_saying_how() -> None:
    assert "\n" not in NOTICE
    assert "pure Python" in NOTICE and "pip install ." in NOTICE


# --- README's two commands ------------------------------------------------------------------


def readme_commands() -> list[str]:
    """The shell lines of README's "Two commands" section, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Two commands\n", 1)[1].split("\n## ", 1)[0]
    blocks = section.split("```sh\n")[1:]
    return [line for block in blocks for line in block.split("```", 1)[0].splitlines() if line]


def test_readme_installs_showing_pips_progress_and_tests_as_ci_does() -> None:
    play, tests = readme_commands()
    assert play.endswith(" && .venv/bin/hexhaven play")
    installs = [part.strip() for part in (play.split("&&")[1], tests.split("&&")[1])]
    assert installs == [".venv/bin/pip install .", ".venv/bin/pip install -e '.[test,train]'"]
    for install in installs:  # pip's progress shown: a first install takes minutes
        assert not {"-q", "--quiet", "--progress-bar=off"} & set(install.split())
    test_command = tests.split("&&")[2].strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci  # CI runs README's test command as it stands
    assert any(".venv/bin/pip install" in line and "-e '.[test,train]'" in line for line in ci)
