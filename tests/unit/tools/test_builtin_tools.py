"""The opt-in built-in tools: a calculator that refuses anything but arithmetic, the current time,
and read_file confined to one folder."""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ragkit.agent import Agent
from ragkit.errors import ToolError
from ragkit.testing import ScriptedProvider
from ragkit.testing.scripted import tool_call_response
from ragkit.tools import calculator, current_time, default_tools, read_file_tool
from ragkit.tools.builtin import CalculatorError, evaluate


@pytest.mark.parametrize(("expression", "expected"), [
    ("1 + 2 * 3", "7"), ("(17.5 * 3 - 2) / 4", "12.625"), ("2 ** 10 - 3 * (4 + 5)", "997"),
    ("7 // 2", "3"), ("-7 % 3", "2"), ("-(2 ** 3)", "-8"), ("0.1 + 0.2", "0.3"), ("2 ** 0.5", "1.4142135623731"),
    ("10 ** 30", str(10**30)), ("1e3 / 8", "125"),
])
def test_the_calculator_does_arithmetic(expression: str, expected: str) -> None:
    result = calculator.invoke({"expression": expression})
    assert not result.is_error and result.content == expected


@pytest.mark.parametrize(("expression", "why"), [
    ("__import__('os').system('id')", "only these functions may be called"),
    ("x + 1", "only arithmetic"), ("(1).real", "only arithmetic"),
    ("[1, 2] * 3", "only arithmetic"), ("'a' * 3", "only arithmetic"), ("1 if 2 else 3", "only arithmetic"),
    ("1 < 2", "only arithmetic"), ("True + 1", "only arithmetic"), ("lambda: 1", "only arithmetic"),
    ("().__class__", "only arithmetic"), ("1j * 1j", "only arithmetic"), ("f'{1}'", "only arithmetic"),
    ("1; 2", "not an arithmetic expression"), ("import os", "not an arithmetic expression"),
    ("9 ** 9 ** 9", "exponent is too large"), ("2 ** 5000", "larger than 2\\*\\*4096"),
    ("(2 ** 4000) * (2 ** 4000)", "larger than 2\\*\\*4096"), ("1 / 0", "division by zero"),
    ("10.0 ** 400", "too large"), ("1e308 * 10", "not a finite number"), ("(-8) ** 0.5", "not a real number"),
    ("1 +" * 300 + "1", "longer than 500"),
])
def test_the_calculator_refuses_anything_but_arithmetic(expression: str, why: str) -> None:
    with pytest.raises(CalculatorError, match=why):
        calculator(expression)
    result = calculator.invoke({"expression": expression})
    assert result.is_error and "CalculatorError" in result.content  # the model reads why


@pytest.mark.parametrize(("expression", "expected"), [
    ("sqrt(16)", "4"), ("sqrt(2) * pi", "4.44288293815837"), ("log10(1000)", "3"), ("log(e)", "1"),
    ("log(8, 2)", "3"), ("floor(2.7) + ceil(2.1)", "5"), ("max(1, 5, 3) - min(4, 2)", "3"), ("abs(-3)", "3"),
    ("round(2.567, 2)", "2.57"), ("round(2.5)", "2"), ("factorial(20)", "2432902008176640000"),
    ("tau / 2 - pi", "0"), ("degrees(pi)", "180"), ("hypot(3, 4)", "5"), ("gcd(12, 18)", "6"),
    ("exp(1) - e", "0"), ("isqrt(10 ** 20)", "10000000000"), ("pow(2, 10)", "1024"), ("pow(3, 4, 5)", "1"),
])
def test_the_calculator_knows_the_math_modules_functions_and_constants(expression: str, expected: str) -> None:
    result = calculator.invoke({"expression": expression})
    assert not result.is_error and result.content == expected


@pytest.mark.parametrize(("expression", "why"), [
    ("math.sqrt(4)", "write sqrt\\(x\\), not math.sqrt"), ("sum([1, 2])", "only these functions"),
    ("sqrt(x=4)", "only these functions"), ("max(*[1, 2])", "only these functions"),
    ("eval('1')", "only these functions"), ("getattr(1, 'real')", "only these functions"),
    ("pi.real", "only arithmetic"), ("nan", "only arithmetic"), ("sqrt(-1)", "math domain error"),
    ("factorial(100000)", "up to 10000"), ("comb(10000, 5000)", "larger than 2\\*\\*4096"),
    ("pow(2, 100000)", "exponent is too large"), ("pow(10 ** 1000, 10)", "larger than 2\\*\\*4096"),
    ("round(1.5, 10 ** 9)", "at most 100 digits"), ("exp(1000)", "too large"), ("factorial(-1)", "cannot compute"),
    ("factorial(2.5)", "cannot compute"), ("log(0)", "cannot compute"),
])
def test_the_calculator_stays_safe_with_functions(expression: str, why: str) -> None:
    with pytest.raises(CalculatorError, match=why):
        evaluate(expression)


def test_evaluate_never_runs_code(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(CalculatorError):
        evaluate(f"open({str(marker)!r}, 'w').write('x')")
    assert not marker.exists()


def test_current_time_is_now_in_the_zone_asked_for() -> None:
    before = datetime.now(timezone.utc).replace(microsecond=0)
    text = current_time()
    stamp = datetime.fromisoformat(text.split(" ")[0])
    assert stamp.utcoffset().total_seconds() == 0 and abs((stamp - before).total_seconds()) < 5
    assert re.search(r"\((Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), UTC\)$", text)
    assert "+09:00" in current_time("Asia/Tokyo")
    bad = current_time.invoke({"timezone": "Mars/Olympus"})
    assert bad.is_error and "unknown time zone 'Mars/Olympus'" in bad.content


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "notes.md").write_text("# Notes\nferry at 9\n", encoding="utf-8")
    (root / "sub" / "deep.txt").write_text("deep text", encoding="utf-8")
    (root / ".env").write_text("API_KEY=secret", encoding="utf-8")
    (root / "big.txt").write_text("x" * 5000, encoding="utf-8")
    (root / "image.bin").write_bytes(b"\x89PNG\x00\x00binary")
    (tmp_path / "outside.txt").write_text("do not read", encoding="utf-8")
    os.symlink(tmp_path / "outside.txt", root / "link.txt")
    return root


def test_read_file_reads_inside_its_folder_only(folder: Path) -> None:
    read = read_file_tool(folder, max_bytes=1000)
    assert read.name == "read_file" and "docs" in read.description
    assert read("notes.md") == "# Notes\nferry at 9\n" and read("sub/deep.txt") == "deep text"
    assert read("./sub/../notes.md").startswith("# Notes")
    assert read(".").splitlines() == ["big.txt", "image.bin", "link.txt", "notes.md", "sub/"]  # no .env
    assert read("big.txt").endswith("[cut at 1,000 of 5,000 bytes]")
    refused = {
        "../outside.txt": "outside the folder", str(folder.parent / "outside.txt"): "is absolute",
        "link.txt": "outside the folder", "sub/../../outside.txt": "outside the folder",
        ".env": "hidden", "image.bin": "binary", "missing.md": "does not exist",
    }
    for path, why in refused.items():
        result = read.invoke({"path": path})
        assert result.is_error and why in result.content, (path, result.content)
        assert "secret" not in result.content and "do not read" not in result.content
    assert read_file_tool(folder, allow_hidden=True)(".env") == "API_KEY=secret"
    with pytest.raises(ToolError, match="is not a folder"):
        read_file_tool(folder / "notes.md")


def test_default_tools_and_an_agent_using_them(folder: Path) -> None:
    assert [t.name for t in default_tools()] == ["calculator", "current_time"]
    tools = default_tools(root=folder)
    assert [t.name for t in tools] == ["calculator", "current_time", "read_file"]
    provider = ScriptedProvider([
        tool_call_response(("calculator", {"expression": "6 * 7"}), ("read_file", {"path": "notes.md"})),
        "It is 42, and the ferry leaves at 9.",
    ])
    result = Agent(provider, tools=tools).run("what is six times seven, and when is the ferry?")
    outputs = [m.content for m in result.messages if m.role == "tool"]
    assert outputs == ["42", "# Notes\nferry at 9\n"]
    assert {t.name for t in provider.calls[0].tools} == {"calculator", "current_time", "read_file"}
