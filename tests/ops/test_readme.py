"""The README's curl session runs as written, against the front `make run` serves, and again (issue 24:
the README said things that were not so)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import front.app
from games.models import Match, Record
from tests.ops.test_front import serving

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("streams")]


def session() -> str:
    """The shell block under "Five minutes with curl", as the README prints it."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Five minutes with curl", 1)[1]
    found = re.search(r"```sh\n(.*?)```", section, re.S)
    assert found, "no shell block in the README's curl section"
    return found.group(1)


@pytest.mark.skipif(shutil.which("curl") is None, reason="the README's session uses curl")
def test_the_readmes_curl_session_runs_as_written_and_again():
    script = session()
    assert script.startswith("API=http://127.0.0.1:8000/api/v1\n")
    from notify import streams

    streams.HUB.__init__()
    with serving(front.app.application) as port:
        ran = []
        for _ in range(2):  # re-runnable: the names are new each time
            ours = script.replace("http://127.0.0.1:8000", f"http://127.0.0.1:{port}", 1)
            ours += '\necho; echo "RESULT $ANN $BEN $MATCH"\n'
            done = subprocess.run(["bash", "-c", ours], capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stdout + done.stderr
            result = re.search(r"^RESULT (\S+) (\S+) (\S+)$", done.stdout, re.M)
            assert result, done.stdout + done.stderr
            ran.append(list(result.groups()))
            assert '"ekko"' in done.stdout  # the catalogue
            assert '"legal_moves"' in done.stdout and '"problem' not in done.stdout
    (ann1, ben1, match1), (ann2, ben2, match2) = ran
    assert len({ann1, ben1, ann2, ben2}) == 4 and match1 != match2
    for match_id in (match1, match2):
        match = Match.objects.get(id=match_id)
        assert match.status == "active" and match.players == 2 and match.seats.count() == 2  # ben joined
        assert Record.objects.filter(match=match, type="move", actor="player").exists()  # the awaited seat moved
