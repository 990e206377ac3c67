"""The core every handler of the turn machine shares: state, turn id, context, output, verbs.

``TurnStateMachine`` (machine.py) owns one ``TurnCore`` and hands it to each of its handlers
(recording.py, user_input.py, barge_in.py, reply_output.py, reflect.py, reply.py,
write_path.py, failures.py). A handler reads ``state``, ``turn_id``, ``ctx`` (the per-turn
bookkeeping) and ``policy`` here and acts only through the core's verbs: ``job``/``end_job``
for jobs, ``emit`` for commands, ``start_timer``/``cancel_timer``, ``go`` for the one edge of
a step, ``new_turn``/``clean_context`` for the turn's context. Handlers never touch one
another's state; they call one another's public methods.

A step stops in one explicit way, never by an exception: ``go`` returns False when its edge
is undeclared (production only). The handler then returns at once (nothing after a refused
edge may run: ``emit`` and ``go`` raise if it does, a bug), and the machine fails the turn
after it (``stopping.enter_error``). In strict mode (tests) an undeclared edge raises
``UndeclaredTransitionError`` instead: it is a bug in the machine, not a flow.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from desktop_agent.core.cancel import NO_TURN, TurnId
from desktop_agent.core.conversation.history import History
from desktop_agent.core.errors import AgentError
from desktop_agent.core.turns.chunking import Chunker
from desktop_agent.core.turns.commands import CancelTimer, Command, StartTimer
from desktop_agent.core.turns.context import TurnContext
from desktop_agent.core.turns.events import CONTROL_EVENTS, Event, event_job
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.states import JobId, Stage, State, Transition
from desktop_agent.core.turns.telemetry import TurnSpan

_LOGGER = logging.getLogger(__name__)

DROPPED_KEPT = 64
"""How many dropped events ``dropped_events`` keeps (the newest)."""

SPANS_KEPT = 64
"""How many latency spans ``completed_spans`` keeps (the newest)."""


@dataclass(frozen=True, slots=True)
class Step:
    """The machine's answer to one event: the edge it took (if any) and what to do, in order."""

    transition: Transition | None
    commands: tuple[Command, ...]


class UndeclaredTransitionError(AgentError):
    """A handler tried an edge that is not in the declared table (a bug in the machine)."""

    default_code = "undeclared_transition"


class TurnCore:
    """State, turn id, the turn's context, the step's output, and the verbs that change them.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(
        self,
        history: History,
        *,
        policy: TurnPolicy,
        chunker_factory: Callable[[], Chunker],
        strict: bool,
        transitions: frozenset[tuple[State, State]],
    ) -> None:
        """Set up an idle core; see ``TurnStateMachine.__init__`` for the arguments."""
        self.history = history
        """Where finished exchanges are recorded; prompts are built from it."""
        self.policy = policy
        """Timeouts and knobs in force (replaced whole when a setting changes)."""
        self.chunker_factory = chunker_factory
        """Makes a fresh clause chunker."""
        self._strict = strict
        self._transitions = transitions
        self._state = State.LISTENING
        self._turn_id: TurnId = NO_TURN
        self._next_job = 0
        self._live: set[JobId] = set()
        self._ctx = TurnContext(turn_id=NO_TURN, span=TurnSpan(NO_TURN))
        self._out: list[Command] = []
        self._taken: Transition | None = None
        self._refused_at: float | None = None
        self._spans: deque[TurnSpan] = deque(maxlen=SPANS_KEPT)
        self._spans_completed = 0
        self._dropped: deque[Event] = deque(maxlen=DROPPED_KEPT)
        self._dropped_count = 0
        self._ignored_count = 0

    # --- what handlers read -----------------------------------------------------------------

    @property
    def state(self) -> State:
        """The current state (changed only by ``go``)."""
        return self._state

    @property
    def turn_id(self) -> TurnId:
        """The current turn (NO_TURN before the first one)."""
        return self._turn_id

    @property
    def ctx(self) -> TurnContext:
        """The current turn's bookkeeping (replaced by ``new_turn`` and ``clean_context``)."""
        return self._ctx

    @property
    def stopped(self) -> bool:
        """True once ``go`` refused an undeclared edge in this step: handlers stop at once."""
        return self._refused_at is not None

    # --- counters and spans (the machine's read-only view) ----------------------------------

    @property
    def dropped_count(self) -> int:
        """Events dropped as stale since creation."""
        return self._dropped_count

    @property
    def dropped_events(self) -> tuple[Event, ...]:
        """The newest dropped events, oldest first."""
        return tuple(self._dropped)

    @property
    def ignored_count(self) -> int:
        """Current events that meant nothing in the state they arrived in."""
        return self._ignored_count

    @property
    def completed_spans(self) -> tuple[TurnSpan, ...]:
        """Latency spans of the newest turns that ended, oldest first."""
        return tuple(self._spans)

    @property
    def spans_completed(self) -> int:
        """How many spans ever completed (monotonic)."""
        return self._spans_completed

    # --- one step ---------------------------------------------------------------------------

    def accept(self, event: Event) -> bool:
        """The stale-event gate: the ONE place stale events are dropped (and counted)."""
        if isinstance(event, CONTROL_EVENTS):
            return True
        if event.turn_id == self._turn_id:
            job = event_job(event)
            if job is None or job in self._live:
                return True
        self._dropped_count += 1
        self._dropped.append(event)
        _LOGGER.debug("turn %d: dropped stale %r", self._turn_id, event)
        return False

    def begin_step(self) -> None:
        """Start a step: no output, no edge taken, nothing refused."""
        self._out, self._taken, self._refused_at = [], None, None

    def take_refusal(self) -> float | None:
        """The clock time of an edge ``go`` refused in this step (None: none); clears it."""
        at_s, self._refused_at = self._refused_at, None
        return at_s

    def end_step(self) -> Step:
        """The step's edge and commands."""
        return Step(self._taken, tuple(self._out))

    # --- jobs and commands ------------------------------------------------------------------

    def job(self) -> JobId:
        """A new live job id of this turn."""
        self._next_job += 1
        job = JobId(self._next_job)
        self._live.add(job)
        return job

    def end_job(self, job: JobId | None) -> None:
        """``job`` is over: later events that name it are stale."""
        if job is not None:
            self._live.discard(job)

    def is_live(self, job: JobId) -> bool:
        """True while ``job`` may still report."""
        return job in self._live

    def revive(self, job: JobId) -> None:
        """Make an ended job live again (held speculative output replayed on adoption)."""
        self._live.add(job)

    def emit(self, command: Command) -> None:
        """Append ``command`` to the step's output."""
        self._check_running()
        self._out.append(command)

    def ignore(self, event: Event) -> None:
        """``event`` is current but means nothing in this state (e.g. a double press)."""
        self._ignored_count += 1
        _LOGGER.debug("turn %d: %s ignores %r", self._turn_id, self._state.name, event)

    # --- transitions ------------------------------------------------------------------------

    def go(self, target: State, cause: str, at_s: float, cancels: tuple[str, ...] = ()) -> bool:
        """Take the edge to ``target``; False when it is undeclared and was refused.

        On False the caller returns at once; the machine then fails the turn with code
        'undeclared_transition'.

        Raises:
            UndeclaredTransitionError: In strict mode, for an undeclared edge.
        """
        self._check_running()
        if (self._state, target) not in self._transitions:
            message = f"{self._state.name} -> {target.name} ({cause}) is not declared"
            if self._strict:
                raise UndeclaredTransitionError(None, message)
            _LOGGER.error("turn %d: %s", self._turn_id, message)
            self._refused_at = at_s
            return False
        self.record(target, cause, at_s, cancels)
        return True

    def record(self, target: State, cause: str, at_s: float, cancels: tuple[str, ...]) -> None:
        """Take the edge without consulting the table (the forced ERROR only)."""
        if self._taken is not None:
            raise RuntimeError(f"second transition in one step: {self._taken} then {target}")
        self._taken = Transition(self._turn_id, self._state, target, cause, at_s, cancels)
        _LOGGER.info("turn %d: %s -> %s (%s)", self._turn_id, self._state.name, target.name, cause)
        self._state = target

    def _check_running(self) -> None:
        if self._refused_at is not None:
            raise RuntimeError(f"turn {self._turn_id}: a handler went on after a refused edge")

    # --- turns, timers, spans ---------------------------------------------------------------

    def new_turn(self) -> TurnContext:
        """Start the next turn id with a clean context. Jobs of the old turn are forgotten."""
        self._turn_id = TurnId(self._turn_id + 1)
        self._live.clear()
        self._ctx = TurnContext(turn_id=self._turn_id, span=TurnSpan(self._turn_id))
        return self._ctx

    def clean_context(self) -> None:
        """Keep the turn id, drop everything else (after an error, a reset, a finished reply)."""
        self._live.clear()
        self._ctx = TurnContext(turn_id=self._turn_id, span=TurnSpan(self._turn_id))

    def finish_span(self) -> None:
        """Keep the turn's span among the completed ones (once)."""
        if self._ctx.span.marks and (not self._spans or self._spans[-1] is not self._ctx.span):
            self._spans.append(self._ctx.span)
            self._spans_completed += 1

    def start_timer(self, stage: Stage, seconds: float) -> JobId:
        """Arm a timer of the turn; its StageTimedOut names the returned job."""
        job = self.job()
        self._ctx.timers[job] = stage
        self.emit(StartTimer(turn_id=self._turn_id, job=job, stage=stage, seconds=seconds))
        return job

    def cancel_timer(self, job: JobId | None) -> None:
        """Disarm ``job`` if it is an armed timer of the turn."""
        if job is not None and job in self._ctx.timers:
            del self._ctx.timers[job]
            self.end_job(job)
            self.emit(CancelTimer(turn_id=self._turn_id, job=job))
