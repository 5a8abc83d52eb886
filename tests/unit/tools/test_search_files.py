"""The ``search_files`` built-in: glob and grep confined to its folders (no escape through ``..``,
absolute paths or symlinks), bounded in results, files and size; tools built by registry name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragkit.agent import Agent
from ragkit.errors import ConfigError, ToolError
from ragkit.testing import ScriptedProvider
from ragkit.testing.scripted import tool_call_response
from ragkit.tools import named_tool, search_files_tool


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "notes" / "deep").mkdir(parents=True)
    (root / "guide.md").write_text("# Guide\nThe ferry sails on Tuesdays.\n", encoding="utf-8")
    (root / "notes" / "todo.txt").write_text("buy paraffin\nFERRY tickets\n", encoding="utf-8")
    (root / "notes" / "deep" / "plan.md").write_text("no boats here\n", encoding="utf-8")
    (root / ".secret.md").write_text("ferry password\n", encoding="utf-8")
    (root / "blob.bin").write_bytes(b"ferry\x00\x01")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.md").write_text("the ferry leaks\n", encoding="utf-8")
    return root


def run(tool, **args) -> str:
    result = tool.invoke(args)
    assert not result.is_error, result.content
    return result.content


def test_glob_and_grep(tree: Path) -> None:
    tool = search_files_tool(tree)
    assert run(tool, pattern="**/*.md").splitlines() == ["guide.md", "notes/deep/plan.md"]
    assert run(tool, pattern="*.txt") == "notes/todo.txt"  # no folder in the pattern: any folder
    assert run(tool, pattern="notes/*") == "notes/todo.txt"  # * stays within one folder
    assert run(tool, contains="ferry").splitlines() == ["guide.md:2: The ferry sails on Tuesdays.",
                                                      "notes/todo.txt:2: FERRY tickets"]
    assert run(tool, pattern="*.md", contains="boats") == "notes/deep/plan.md:1: no boats here"
    assert run(tool, contains="submarine") == "no matching files containing 'submarine'"


def test_nothing_outside_the_folder_is_read(tree: Path) -> None:
    os.symlink(tree.parent / "outside", tree / "link-dir")
    os.symlink(tree.parent / "outside" / "leak.md", tree / "leak.md")
    os.symlink(tree / "guide.md", tree / "inside.md")  # a link that stays inside is fine
    tool = search_files_tool(tree)
    everything = run(tool, contains="ferry")
    assert "leak" not in everything and "password" not in everything and "blob" not in everything
    assert "inside.md:2:" in everything
    for pattern in ("../outside/*.md", "/etc/*", "notes/../../outside/*"):
        result = tool.invoke({"pattern": pattern})
        assert result.is_error and "leaves the folder" in result.content


def test_results_files_and_sizes_are_bounded(tree: Path) -> None:
    for i in range(30):
        (tree / f"many{i:02d}.txt").write_text("ferry\n" * 5, encoding="utf-8")
    (tree / "huge.txt").write_text("ferry\n" * 50_000, encoding="utf-8")
    tool = search_files_tool(tree, max_results=7, max_file_bytes=10_000)
    out = run(tool, contains="ferry").splitlines()
    assert len(out) == 8 and out[-1] == "[stopped at 7 results]"
    assert "huge.txt" not in run(search_files_tool(tree, max_file_bytes=10_000, max_results=1000), contains="ferry")
    assert len(run(search_files_tool(tree, max_files=3)).splitlines()) == 3
    with pytest.raises(ToolError, match="max_results must be a positive integer"):
        search_files_tool(tree, max_results=0)


def test_several_folders_and_hidden_files(tree: Path, tmp_path: Path) -> None:
    tool = search_files_tool(tree, tmp_path / "outside", allow_hidden=True)
    out = run(tool, pattern="*.md", contains="ferry").splitlines()
    assert out == ["docs/.secret.md:1: ferry password", "docs/guide.md:2: The ferry sails on Tuesdays.",
                   "outside/leak.md:1: the ferry leaks"]
    with pytest.raises(ToolError, match="not a folder"):
        search_files_tool(tmp_path / "missing")


def test_an_agent_calls_it(tree: Path) -> None:
    provider = ScriptedProvider([tool_call_response(("search_files", {"pattern": "**/*.txt", "contains": "paraffin"})),
                                 "Your todo list says to buy paraffin."])
    result = Agent(provider, tools=[search_files_tool(tree)]).run("What must I buy?")
    assert result.tool_calls[0].output == "notes/todo.txt:1: buy paraffin"


def test_tools_by_registry_name(tree: Path) -> None:
    assert run(named_tool("calculator"), expression="sqrt(81)") == "9"
    assert run(named_tool("search_files", {"roots": [str(tree)]}), pattern="*.txt") == "notes/todo.txt"
    assert run(named_tool("read_file", {"root": str(tree)}), path="guide.md").startswith("# Guide")
    with pytest.raises(ConfigError, match="unknown tool 'calculater'; did you mean 'calculator'"):
        named_tool("calculater")
    with pytest.raises(ConfigError, match="unknown tool 'os.system'"):
        named_tool("os.system")  # a dotted path is a name like any other: never imported
    with pytest.raises(ConfigError, match="unknown option 'root' for the tool 'search_files'; allowed: roots"):
        named_tool("search_files", {"root": str(tree)})
    with pytest.raises(ConfigError, match="roots must be a list of folders"):
        named_tool("search_files", {"roots": str(tree)})
