"""manage.py keep_final_states: every ended match that keeps no final state gets the one a full
replay gets; matches that keep theirs, live ones and unstarted ones are left as they are."""

from __future__ import annotations

import io
import pickle

import pytest
from django.core.management import call_command

from games import archive, replay
from games.models import FinalState, Match
from games.services import lobby, play
from rules import RULES

pytestmark = pytest.mark.django_db


def keep(*args: str) -> str:
    out = io.StringIO()
    call_command("keep_final_states", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def matches(make_user):
    """Two ended EKKO matches (one archived) and an ended Enka one, their kept states deleted, as
    before final states were kept; a live match; one that never started, cancelled; a kept one."""
    ann, ben = make_user("ann"), make_user("ben")

    def ended(game: str) -> Match:
        match = lobby.match_create(user=ann, game=game, players=2)
        lobby.match_join(match_id=match.id, user=ben)
        play.match_resign(match_id=match.id, user=ben)
        return Match.objects.get(id=match.id)

    old = [ended("ekko"), ended("ekko"), ended("enka")]
    assert archive.archive(old[1].id)
    FinalState.objects.filter(match_id__in=[m.id for m in old]).delete()
    live = lobby.match_create(user=ann, game="ekko", players=2)
    lobby.match_join(match_id=live.id, user=ben)
    unstarted = lobby.match_create(user=ann, game="ekko", players=2)
    Match.objects.filter(id=unstarted.id).update(status=Match.Status.ABORTED)
    kept = ended("ekko")
    return old, live, kept


def _state(match: Match):
    tag, version, state = pickle.loads(FinalState.objects.get(match_id=match.id).state)
    assert (tag, version) == (replay.rules_tag(match), match.version)
    return state


def test_each_ended_match_without_one_keeps_what_its_replay_gets(matches):
    old, live, kept = matches
    before = FinalState.objects.get(match_id=kept.id).state
    assert "kept the final state of 3 of 4 ended matches (1 never started, 0 do not replay)" in keep()
    for match in (Match.objects.get(id=m.id) for m in old):  # read again: one is archived now
        rules = RULES[match.game]
        assert rules.dump_state(_state(match)) == rules.dump_state(replay.full_replay(match))
    assert not FinalState.objects.filter(match_id=live.id).exists()
    assert FinalState.objects.get(match_id=kept.id).state == before  # not read again
    assert keep().strip() == "kept the final state of 0 of 1 ended matches (1 never started, 0 do not replay)"


def test_a_game_at_a_time(matches):
    assert "kept the final state of 1 of 1 ended matches" in keep("--game", "enka")
    assert "kept the final state of 2 of 3 ended matches" in keep("--game", "ekko")


def test_a_match_that_does_not_replay_is_reported_and_left_without(matches):
    old, _, _ = matches
    Match.objects.filter(id=old[0].id).update(rules_version=999)  # recorded under rules this server lacks
    out = keep()
    assert f"{old[0].id}: does not replay (RulesVersionMismatch); see verify_matches" in out
    assert "kept the final state of 2 of 4 ended matches (1 never started, 1 do not replay)" in out
    assert not FinalState.objects.filter(match_id=old[0].id).exists()
