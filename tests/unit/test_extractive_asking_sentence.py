"""The sentence that asks, after a scene: a candidate that says none of the asking sentence's
words restates the scene ("these wrong times go away when the HomeJail directive is removed"),
and the best one that says some of them answers first. A list item that introduces a short code
block keeps it ("Format volumes … in the storage class:" and its YAML), never cut at the colon.
The row of a table that writes the identifier the question names leads, not a sentence sharing
the question's other words. Each document is written for the test, in the shape of a page where the answerer went wrong."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer

from .test_extractive_said_kind import _passages

LOG_TIMES = _passages(
    ("Tallyd: Log Times\n\nThere are reports that times written in Tallyd's log files, such as the AccessLog, "
     "or in directory listings, are not as expected. Other programs on the same host do not show the problem. "
     "So is tallyd wrong about times?\n\nIf the times in question are those shown in directory listings, then "
     "you need to check your ListTimesUTC configuration. Otherwise the times are right until the user logs in. "
     "After that, they are wrong. This is one clue. The other clue is that these wrong times go away when the "
     "HomeJail directive is removed from the tallyd.conf file.", "times.html"),
    ("The good news is that the above behaviour does not happen if the TZ environment variable is set "
     "explicitly, to the wanted timezone. That is, if the C library needs the timezone and finds that TZ is "
     "set, it uses that TZ setting rather than falling back to GMT.\n\nAffected Library Functions\nOnce a "
     "process has changed its root, the calls localtime(3) and ctime(3) may get the timezone wrong.", "times.html"),
    ("Obviously you will need to set the timezone to whatever suits your site. Some systems expect other "
     "values for the TZ environment variable:\n\nSetEnv TZ :/etc/localtime\n\nNote: Using a file location "
     "such as \":/etc/localtime\" for the TZ environment variable can still give wrong log times. The best "
     "solution is to give the timezone's name.", "times.html"),
)

XFS = _passages(
    ("## Mount fails on old kernels\n\nVolumes formatted with XFS on a new kernel fail to mount on RHEL 7 "
     "nodes.\n\n### Workaround\n\nYou can avoid this by either of the following:\n\n- Upgrade the kernel to a "
     "version that supports the XFS features.\n- Format volumes with compatible options by customising the "
     "storage class:\n\n  ```yaml\n  parameters:\n    mkfsParams: \"-m crc=0,finobt=0\"\n  ```\n",
     "kb/xfs-mount.md"),
)


UPGRADING = _passages(
    ("## Upgrading from v3 to v4\n\nThe last image of the Harbord container with v3 components was "
     "`2024.01.0`. Images after it are based on v4 components.\n\nBy default, Harbord v4 no longer reads files "
     "from `/etc/harbord.d/`.", "upgrading/v3-v4.md"),
    ("## Changed Environment Variables\n\nMost environment variables of v3 were removed; set their new names "
     "instead.\n\n| Old | New |\n|---|---|\n| `LEASE_TIME` | `HBCONF_lease_time` |\n| `LEASE_START` | "
     "`HBCONF_lease_start` |\n| `LEASE_END` | `HBCONF_lease_end` |\n", "upgrading/v3-v4.md"),
)


def test_the_row_that_writes_the_named_identifier_leads() -> None:
    """"… still sets LEASE_TIME. What is the replacement variable?": the row of `LEASE_TIME`, not
    the sentences that share "v3" and "v4" and score higher."""
    answer = extractive_answer("I'm moving my Harbord container from v3 to v4 and my compose file still sets "
                               "LEASE_TIME. What is the replacement variable?", UPGRADING)
    assert answer.startswith("Old: `LEASE_TIME`; New: `HBCONF_lease_time`")


def test_a_candidate_that_restates_the_scene_does_not_lead() -> None:
    """"… but only when HomeJail is enabled. Which environment variable should I set?": the sentence
    on HomeJail restates the scene and says none of the asking sentence's words; a sentence on the
    TZ environment variable answers first."""
    answer = extractive_answer("Once users log in, the times in my AccessLog switch to GMT, but only when HomeJail "
                               "is enabled. Which environment variable should I set to fix this?", LOG_TIMES)
    first = answer.split("[", 1)[0]
    assert "TZ environment variable" in first
    assert "HomeJail" not in first


def test_a_list_item_keeps_the_code_it_introduces() -> None:
    """"What mkfs options can I put in the storage class?": the list item ends with a colon and the
    YAML after it holds the options."""
    answer = extractive_answer("We still run RHEL 7 nodes and XFS volumes fail to mount. What mkfs options can I "
                               "put in the storage class to work around it?", XFS)
    assert "customising the storage class:" in answer
    assert "crc=0,finobt=0" in answer
