"""Words that may not start or end a mined phrase (English function words and filler)."""

from __future__ import annotations

_STOP_TEXT = """
a about above after again against all almost along already also although always am among an
and another any anyone anything anyway are around as at available back be because been before
being below best better between both but by can cannot could currently did different do does
doing done down during each easily either else enough especially etc even ever every example
examples except far few first following for found four from full further get gets getting give
given gives go goes going good got had has have having he her here hers him his how however if
in including indeed instead into is it its itself just keep kept know last later least less let
like likely little long look made main make makes making many may maybe me might more most much
must my near necessary need needed needs never new next no non none nor not note nothing now
number of off often old on once one only onto or other others otherwise our out over own part
particular per perhaps possible possibly present probably provide provided provides put quite
rather really requires respectively right said same second see seems seen several shall she
should show shown shows similar simply since so some something sometimes still such sure take
than that the their them themselves then there therefore these they thing things third this
those though three through thus to together too two under unless until up upon us use used
useful uses using usually various very via want was way ways we well were what whatever when
where whether which while who whole whom whose why will with within without would yet you your
described describes see also
following work works called call calls
"""
STOPWORDS: frozenset[str] = frozenset(_STOP_TEXT.split())

# Extra words that make a phrase generic when they are its head (last) word.
_GENERIC_TEXT = (
    "case cases time times kind kinds sort sorts lot lots bit bits thing things place way"
)
GENERIC_HEADS: frozenset[str] = frozenset(_GENERIC_TEXT.split())

# Vague modifiers that make weak phrase starts ("current version", "final run", "low level").
_WEAK_FIRST_TEXT = (
    "current standard low high final single double takes take taking latter former certain "
    "earlier newer older previous recent third fourth fifth simple small large big short extra line real normal usual"
)
WEAK_FIRST: frozenset[str] = frozenset(_WEAK_FIRST_TEXT.split())

# Verbs and vague nouns that make weak phrase ends ("italic refer", "takes care").
_WEAK_HEAD_TEXT = (
    "refer care level user users run runs needs means part parts side end elsewhere ones "
    "assumes specifying point starting"
)
WEAK_HEADS: frozenset[str] = frozenset(_WEAK_HEAD_TEXT.split())

# Rules 2 (ConstructionConfig.rules): a phrase led by one of these verbs, or by a vague word,
# is an instruction or filler, not a topic ("feel free", "fix problem", "set font",
# "relevant information", "inside math"); "discusses X" would read wrong.
_VERB_FIRST_TEXT = (
    "feel set fix make get give put keep let try avoid allow want need see find add use "
    "change check define select specify provide turn load call inside relevant corresponding "
    "following various useful important"
)
VERB_FIRST: frozenset[str] = frozenset(_VERB_FIRST_TEXT.split())
