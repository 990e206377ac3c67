"""The user's documents: the index port, and spoken answers grounded in them (pure).

The port is ``index`` (``KnowledgeIndex``, ``Passage``; adapters/knowledge implements it).

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
from desktop_agent.core.knowledge.planner import (
    LIMITATION,
    OFFER_PHRASE,
    addresses,
    compose_answer,
    plan_answer,
)
from desktop_agent.core.knowledge.records import (
    ROLES,
    AnswerPlan,
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
    "followup",
    "index",
    "lexical",
    "planner",
    "records",
    "LIMITATION",
    "OFFER_PHRASE",
    "ROLES",
    "AnswerPlan",
    "Claim",
    "ClaimProposer",
    "Disposition",
    "FollowUp",
    "Followup",
    "LexicalProposer",
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
