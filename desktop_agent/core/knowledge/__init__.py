"""The user's documents: the index port, and spoken answers grounded in them (pure).

The port is ``index`` (``KnowledgeIndex``, ``Passage``; adapters/knowledge implements it).
``derive`` works out one number from amounts the passages state ("students pay half").
``meaning`` (``Meaning``: sentence vectors) lets the index fuse word search with meaning
search (``fusion``), the ranking weigh meaning, and the gate accept a question put in other
words (``paraphrase``).

retrieve (``KnowledgeIndex``) -> propose claims (``ClaimProposer``, e.g. the local LLM)
-> the support gate (``support``) -> the planner (``plan_answer``): immutable spoken units,
the answer first with the condition that keeps it true in the same unit, optional detail
offered, a truthful limitation when nothing is supported. Each unit is admitted
(``admit``) after synthesis and right before playback. Follow-ups (repeat, rephrase,
"which one?", corrections) work on the last plan (``followup``).
"""

from desktop_agent.core.knowledge.followup import (
    FollowUp,
    Followup,
    clarify_referent,
    classify_followup,
    corrected_question,
    repeat_units,
    rephrase,
)
from desktop_agent.core.knowledge.lexical import LexicalProposer, Ranked, rank_sentences
from desktop_agent.core.knowledge.meaning import Meaning
from desktop_agent.core.knowledge.planner import (
    LIMITATION,
    OFFER_PHRASE,
    addresses,
    compose_answer,
    plan_answer,
)
from desktop_agent.core.knowledge.records import (
    CALCULATION_FILE,
    ROLES,
    AnswerPlan,
    Calculate,
    Calculation,
    Claim,
    ClaimProposer,
    Disposition,
    Quote,
    Role,
    SpokenUnit,
    Verdict,
    admit,
)
from desktop_agent.core.knowledge.support import support

__all__ = [
    "claim_text",
    "derive",
    "followup",
    "fusion",
    "index",
    "lexical",
    "meaning",
    "paraphrase",
    "planner",
    "records",
    "CALCULATION_FILE",
    "LIMITATION",
    "OFFER_PHRASE",
    "ROLES",
    "AnswerPlan",
    "Calculate",
    "Calculation",
    "Claim",
    "ClaimProposer",
    "Disposition",
    "FollowUp",
    "Followup",
    "LexicalProposer",
    "Meaning",
    "Quote",
    "Ranked",
    "Role",
    "SpokenUnit",
    "Verdict",
    "addresses",
    "admit",
    "clarify_referent",
    "classify_followup",
    "compose_answer",
    "corrected_question",
    "plan_answer",
    "rank_sentences",
    "rephrase",
    "repeat_units",
    "support",
]
