"""Lead strategies for a seat that still needs tricks (``lead=`` option).

Each takes the ``Knowledge`` of the seat, the legal cards and the play policy
(for its win odds) and returns the card to lead. Leads when the bid is made,
or for a nil, are the policy's ducking leads, not these.
"""

from __future__ import annotations

from collections.abc import Callable

from cardrl.envs.spades.engine import POWER_TABLE as POWER
from cardrl.envs.spades.engine import SUIT_TABLE as SUIT
from cardrl.envs.spades.tracking import SPADES, Knowledge, split_by_suit

ACE, KING, QUEEN = 12, 11, 10


def _suits_to_lead(legal: list[int]) -> list[list[int]]:
    """Legal leads by suit, side suits only unless spades are all we may lead."""
    suits = split_by_suit(legal)
    side = [cs for s, cs in enumerate(suits) if cs and s != SPADES]
    return side or [suits[SPADES]]


def lead_default(kn: Knowledge, legal: list[int], policy) -> int:
    """Simple default: cash a card no unseen card outranks, else low from the longest suit."""
    masters = [c for c in legal if kn.is_master(c)]
    if masters:
        return max(masters, key=lambda c: (SUIT[c] != SPADES, POWER[c]))
    longest = max(_suits_to_lead(legal), key=len)
    return longest[0]


def lead_p22(kn: Knowledge, legal: list[int], policy) -> int:
    """P2.2: 1) a suit without A, K or Q; 2) an ace; 3) underlead a queen; 4) underlead a king.

    1) leads the lowest card of the shortest such suit (working toward a void
    to ruff); 3) and 4) lead the lowest card of a suit headed by the Q or K.
    With none of these, the lowest card.
    """
    suits = _suits_to_lead(legal)
    plain = [cs for cs in suits if POWER[cs[-1]] < QUEEN]
    if plain:
        return min(plain, key=lambda cs: (len(cs), POWER[cs[0]]))[0]
    aces = [cs[-1] for cs in suits if POWER[cs[-1]] == ACE]
    if aces:
        return aces[0]
    for head in (QUEEN, KING):
        under = [cs for cs in suits if POWER[cs[-1]] == head and len(cs) > 1]
        if under:
            return min(under, key=lambda cs: POWER[cs[0]])[0]
    return min((cs[0] for cs in suits), key=POWER.__getitem__)


def lead_smart(kn: Knowledge, legal: list[int], policy) -> int:
    """Expert lead: cash safe masters, draw trumps when we own them, else develop a suit.

    With a trick or more to spare it leads a loser instead, keeping counted winners.
    """
    deficit = kn.need() - kn.expected_tricks
    counted = kn.counted
    if deficit <= -1.0:
        return policy.lose(kn, legal, keep=counted)
    odds = {c: policy.p_win(kn, c) for c in legal if SUIT[c] != SPADES and kn.is_master(c)}
    cash = [c for c, p in odds.items() if p >= 0.75]
    if cash:
        return max(cash, key=lambda c: (odds[c], POWER[c]))
    trumps = [c for c in kn.spade_winners if c in legal]
    unseen_spades = len(kn.unseen_suits[SPADES])
    if trumps and unseen_spades and len(kn.my_suits[SPADES]) >= unseen_spades:
        return max(trumps, key=POWER.__getitem__)
    spare = len(kn.my_suits[SPADES]) - len(kn.spade_winners)

    def develop(cs: list[int]) -> float:
        suit = SUIT[cs[0]]
        score = -0.05 * POWER[cs[0]]
        if suit == SPADES:
            return score - 1.0 if len(cs) < len(legal) else score
        if len(cs) <= 2 and spare > 0:
            score += 0.6  # short suit: lead it out to ruff later
        top = cs[-1]
        if len(cs) > 1 and 1 <= kn.n_higher(top) <= 2:
            score -= 0.3  # an honour that may promote: let others lead the suit
        score -= 0.3 * kn.p_ruffed(suit)  # a ruff here costs us a card for nothing
        return score

    suits = split_by_suit(legal)
    best = max((cs for cs in suits if cs), key=develop)
    return best[0]


LeadStrategy = Callable[[Knowledge, list[int], object], int]
LEAD_STRATEGIES: dict[str, LeadStrategy] = {
    "default": lead_default,
    "p2.2": lead_p22,
    "smart": lead_smart,
}
