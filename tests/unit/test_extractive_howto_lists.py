"""A how-to's description line that leads a list (a cheat sheet for users of another tool:
"delete entire line:" then "- oldvi: `dd`" and "- quill: `xd`") answers with its list, though
its own words only restate the question: what it adds is the list after it. Written for the
shape of an editor's "coming from Vim" page. A question that asks for the ways to do a thing reads on
from a sentence that states the case to the sentence after it that leads the commands ("To silence
it, use any of these methods:"); a how-to answer shows no code of a later section of its page (a
page's EEPROM sketch under its double-tap reset)."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage

_CHEAT_SHEET = """## Line Deletes

delete to line end:
* oldvi: `D`
* quill: `vgld` or `t<ret>d`

Note: `v` is used along with `gl` (go to line end), because `gl` does not select text.

delete entire line:
* oldvi: `dd`
* quill: `xd`

Note: `x` selects the entire line under the cursor.
"""


def test_the_list_a_howto_line_leads_answers() -> None:
    passages = [Passage(1, _CHEAT_SHEET, {"source": "from-oldvi.md", "heading": "Line Deletes", "start": "0"})]
    answer = extractive_answer(
        "I'm coming from Oldvi. What do I type in Quill to delete an entire line, the equivalent of Oldvi's dd?",
        passages)
    assert "`xd`" in answer and "delete entire line" in answer
    assert "vgld" not in answer

_SOUND_PAGE = [
    Passage(1, "## Control sound\n\nquaver plays a chime when a build finishes. To silence it, use any of these methods:\n\n"
               "```bash\n# Via environment variable\nQUAVER_MUTE=1 quaver build\n\n# Via CLI flag\nquaver build --chime off\n```\n",
            {"source": "how-to/usage.md", "heading": "Control sound"}),
    Passage(2, "## Builds\n\nquaver builds each target in its own folder and keeps the logs of the last ten builds.",
            {"source": "how-to/builds.md", "heading": "Builds"}),
]


def test_a_list_question_reads_on_to_the_sentence_that_leads_the_methods() -> None:
    answer = extractive_answer("What are the ways to silence quaver's chime?", _SOUND_PAGE)
    assert "QUAVER_MUTE=1" in answer and "--chime off" in answer, answer


def test_a_list_question_reads_on_to_the_sentence_that_leads_a_list() -> None:
    page = [Passage(1, "## Control sound\n\nquaver plays a chime when a build finishes. To silence it, use one of:\n\n"
                       "- the environment variable `QUAVER_MUTE=1`\n- the flag `--chime off`\n",
                    {"source": "how-to/usage.md", "heading": "Control sound"}), _SOUND_PAGE[1]]
    answer = extractive_answer("What are the ways to silence quaver's chime?", page)
    assert "QUAVER_MUTE=1" in answer and "--chime off" in answer, answer

RESET_PAGE = [
    Passage(1, "## Double-tap reset\n\nOn Heron boards, pressing the RESET button twice in quick succession puts the "
               "board in loader mode. Instead of running a sketch, the board waits for an upload.",
            {"source": "reset-heron.md", "heading": "Reset your board > Double-tap reset", "start": "100"}),
    Passage(2, "## Clear the EEPROM\n\nUpload this sketch to set every byte of the EEPROM to 0:\n\n```cpp\n"
               "#include <EEPROM.h>\nvoid setup() {\n  for (int i = 0; i < EEPROM.length(); i++) EEPROM.write(i, 0);\n"
               "  pinMode(13, OUTPUT); // the board's LED\n}\n```\n",
            {"source": "reset-heron.md", "heading": "Reset your board > Clear the EEPROM", "start": "900"}),
]


def test_a_howto_answer_shows_no_code_of_a_later_section() -> None:
    answer = extractive_answer("How do I put a Heron board into loader mode with the RESET button?", RESET_PAGE)
    assert "twice in quick succession" in answer and "EEPROM" not in answer, answer


_TIMER_PAGE = """## Schedule it

Finally, set up 2 timer jobs to run every 30 seconds. To edit your timer table run:

```bash
timertab -e
```

And add the following content:

```bash
* * * * * /opt/guard/check.sh
* * * * * ( sleep 30 ; /opt/guard/check.sh )
```

Note that you need to change the path to the script.
"""


def test_a_howto_answer_goes_on_to_the_step_after_its_command() -> None:
    # the command that opens the table is half the step: "And add the following content:" and its
    # block say what the question asks
    passages = [Passage(1, _TIMER_PAGE, {"source": "guard.md", "heading": "Guard > Schedule it"})]
    answer = extractive_answer("The guard script should check the load every 30 seconds, but the timer runs jobs once "
                               "a minute. How does the guide's timer table get the second run in each minute?", passages)
    assert "timertab -e" in answer and "And add the following content:" in answer and "sleep 30" in answer, answer
    # a line after the code that starts nothing new adds nothing
    alone = _TIMER_PAGE.replace("And add the following content:", "The table opens in your editor.")
    answer = extractive_answer("How do I edit the timer table to run the guard every 30 seconds?",
                               [Passage(1, alone, {"source": "guard.md", "heading": "Guard > Schedule it"})])
    assert "timertab -e" in answer and "sleep 30" not in answer, answer
